*! version 0.1.0  01dec2026
*! llmvalidate: validate LLM annotations without a human benchmark (Hansen 2026, FEDS 2026-020)
program define llmvalidate, rclass
    version 14.1
    * llmvalidate alone shows the last results posted in e() again, as an estimation command
    * typed alone does.
    if `"`0'"' == "" {
        Replay
        exit
    }
    gettoken subcommand rest : 0, parse(" ,")
    * A string variable of passages may be named like a subcommand (test, power, sample, cache,
    * version, models, overview, report). It is the variable when the rest of the command is one only validation has:
    * an if or in qualifier, or an option no subcommand of that name takes. llmvalidate
    * validate varname, ... is always a validation.
    if inlist(`"`subcommand'"', "test", "power", "sample", "cache", "version", "models",  ///
        "overview", "report") {
        capture confirm string variable `subcommand', exact
        if _rc == 0 {
            IsValidation `subcommand' `rest'
            if r(validation) local subcommand
            else {
                display as text "(note: `subcommand' is also a string variable; to validate it,"  ///
                    " type {cmd:llmvalidate validate `subcommand', ...})"
            }
        }
    }
    if `"`subcommand'"' == "validate" {
        gettoken first : rest, parse(" ,")
        capture confirm variable `first'
        if _rc == 0 & `"`first'"' != "" {
            LoadPlugin
            Validate `rest'
            return add
            exit
        }
    }
    if `"`subcommand'"' == "test" {
        LoadPlugin
        Test `rest'
    }
    else if `"`subcommand'"' == "version" {
        LoadPlugin
        Version `rest'
    }
    else if `"`subcommand'"' == "power" {
        LoadPlugin
        Power `rest'
    }
    else if `"`subcommand'"' == "cache" {
        LoadPlugin
        Cache `rest'
    }
    else if `"`subcommand'"' == "sample" {
        LoadPlugin
        Sample `rest'
    }
    else if `"`subcommand'"' == "models" {
        LoadPlugin
        Models `rest'
    }
    else if `"`subcommand'"' == "overview" {
        LoadPlugin
        Overview `rest'
    }
    else if `"`subcommand'"' == "report" {
        LoadPlugin
        Report `rest'
    }
    else {
        LoadPlugin
        Validate `0'
    }
    return add
end

* Whether `llmvalidate NAME rest' validates the string variable NAME rather than running the
* subcommand NAME: rest has an option that only validation takes (by its shortest
* abbreviation), or an if or in qualifier where the subcommand takes none. r(validation) is 1
* or 0.
* lint: internal
program define IsValidation, rclass
    version 14.1
    gettoken subcommand rest : 0
    * The options: what follows the first comma. An if or in qualifier marks a validation only
    * for the subcommands that take none (power, cache, version, models).
    local comma = strpos(`"`macval(rest)'"', ",")
    local before = cond(`comma' > 0, substr(`"`macval(rest)'"', 1, `comma' - 1), `"`macval(rest)'"')
    local qualifier = regexm(" " + `"`macval(before)'"', "^ *(if|in) ")
    local qualifier = `qualifier' & inlist("`subcommand'", "power", "cache", "version", "models")
    * The options of validation that the subcommand of that name does not have, read by
    * -syntax- itself, so that abbreviations are matched as Stata matches them. models takes
    * provider(), baseurl() and keyenv() itself.
    local connection PROVider(passthru) BASEurl(passthru) KEYenv(passthru)
    if "`subcommand'" == "models" local connection
    * The engine's settings that only validation takes, and the statistics settings, are
    * written from the engine's table between the GENERATED markers.
    local only ANNotation(passthru) SIMulation(passthru) VARS(passthru) `connection'        ///
        EMBedding(passthru) EMBMODel(passthru) EMBBASEurl(passthru)                         ///
        PAPER HUMan(passthru) NOCACHE DRYrun continue SAVing(passthru) NOMATrix             ///
        SIMPrompt(passthru) /* BEGIN GENERATED validation-only */                            ///
        TEMPerature(passthru) STRuctured(passthru) ANSwerformat(passthru)                  ///
        REASONeffort(passthru) PARSERetries(passthru) MAXRetries(passthru)                 ///
        TIMEout(passthru) DRAIN(passthru) POLLinterval(passthru) ENCoding(passthru)        ///
        MAXPASSagebytes(passthru)                                                          ///
        /* END GENERATED */
    local methods CONCurrency(passthru) REPeats(passthru) M(passthru) LABELS(passthru)      ///
        /* BEGIN GENERATED statistics-passthru */                                            ///
        ALPha(passthru) THReshold(passthru) VMethod(passthru) SMethod(passthru)            ///
        RULE(passthru) PERMutations(passthru)                                              ///
        /* END GENERATED */
    if "`subcommand'" == "test" {
        local only `only' TASK(passthru) MODel(passthru) CACHE(passthru) M(passthru) N(passthru) ///
            REPeats(passthru) CONCurrency(passthru)
    }
    else if "`subcommand'" == "power" {
        local only `only' MODel(passthru) CACHE(passthru) GENerate(passthru) REPLACE LABELS(passthru)
    }
    else if "`subcommand'" == "sample" {
        local only `only' TASK(passthru) MODel(passthru) CACHE(passthru) `methods'
    }
    else if "`subcommand'" == "cache" {
        local only `only' TASK(passthru) `methods' N(passthru) GENerate(passthru) REPLACE SEED(passthru)
    }
    else {
        local only `only' TASK(passthru) MODel(passthru) CACHE(passthru) `methods' N(passthru) ///
            GENerate(passthru) REPLACE SEED(passthru)
    }
    local found 0
    if `comma' > 0 {
        local options = substr(`"`macval(rest)'"', `comma' + 1, .)
        local 0 `", `macval(options)'"'
        capture syntax [, `only' * ]
        if _rc == 0 {
            foreach option of local only {
                local name = lower(regexr("`option'", "\(.*$", ""))
                if `"`macval(`name')'"' != "" local found 1
            }
        }
    }
    return scalar validation = `qualifier' | `found'
end

* The plugin is loaded once per session; a missing or foreign binary is reported plainly.
program define LoadPlugin
    version 14.1
    capture program list llmvalidate_plugin
    if _rc == 0 exit
    capture program llmvalidate_plugin, plugin using("llmvalidate.plugin")
    if _rc & "`c(os)'" == "MacOSX" {
        * No macOS plugin is distributed: a Mac user builds one (stata/README.md, Platforms).
        display as error "llmvalidate: no plugin for macOS (`c(machine_type)') is installed"
        display as error "{p 4 4 2}net install ships plugins for 64-bit Windows and Linux only."
        display as error "Build the macOS plugin from the source repository with the CMake preset"
        display as error "{bf:macos-arm64} (Apple silicon) or {bf:macos-x86_64} (Intel):"
        display as error "{bf:cmake --preset macos-arm64 && cmake --build --preset macos-arm64},"
        display as error "then copy {bf:build-macos-arm64/stata/net/llmvalidate.plugin} into the"
        display as error "folder of llmvalidate.ado (stata/README.md, Platforms).{p_end}"
        exit 601
    }
    if _rc {
        display as error "llmvalidate: could not load llmvalidate.plugin on `c(os)' (`c(machine_type)')"
        display as error "{p 4 4 2}The plugin is built for 64-bit Windows and 64-bit Linux; reinstall with"
        display as error "{bf:net install llmvalidate, replace} (see {help llmvalidate}).{p_end}"
        exit 601
    }
end

program define Version, rclass
    version 14.1
    syntax [, Quietly]
    local quiet = ("`quietly'" != "")
    plugin call llmvalidate_plugin, version quiet=`quiet'
    return local version `"`llmv_version'"'
    return local spi `"`llmv_spi'"'
    return scalar validate_available = `llmv_pipeline'
    return local cmd "llmvalidate"
    return local subcmd "version"
end

* A string copy of a label variable: string variables as they are, numeric ones through their
* value labels (or their values).
program define AsString
    version 14.1
    args source target
    capture confirm string variable `source'
    if _rc == 0 {
        quietly generate strL `target' = `source'
        exit
    }
    local vlabel : value label `source'
    if "`vlabel'" != "" {
        quietly decode `source', generate(`target')
    }
    else {
        quietly generate strL `target' = cond(missing(`source'), "", strofreal(`source', "%18.0g"))
    }
end

program define CheckNewVariables
    version 14.1
    args prefix suffixes replace
    if "`prefix'" == "" exit
    foreach suffix of local suffixes {
        if "`replace'" == "" confirm new variable `prefix'`suffix'
        else confirm name `prefix'`suffix'
    }
end

* Calls the plugin twice (see stata/src/results.hpp): the first call computes everything and
* announces, in locals of this program, which matrices and new variables it will fill; this
* program creates them (variables as temporaries, so a failure leaves the data as they were),
* the second call stores, and the results are returned in r().
* lint: internal
program define RunPlugin, rclass
    version 14.1
    syntax [varlist(default=none)] , command(name)                                  ///
        [ touse(varname) words(string) generate(string) replace labels(string asis)  ///
          varnames(string) task(string) provider(string) model(string)              ///
          embedding(string)                                                         ///
          embmodel(string) baseurl(string) embbaseurl(string) cache(string)         ///
          keyenv(string) truelabel(string) topic(string) generations(string)        ///
          annotation(string) simulation(string) vars(string asis) varsfound(string)   ///
          embmatrix(string) embfile(string) pricetable(string) rundoc(string)        ///
          mergefrom(string asis) ]

    local llmv_labels `"`labels'"'
    local llmv_annotation `"`annotation'"'
    local llmv_simulation `"`simulation'"'
    local llmv_taskvars `"`vars'"'
    local llmv_taskvars_found `"`varsfound'"'
    local llmv_embmatrix `"`embmatrix'"'
    local llmv_embfile `"`embfile'"'
    local llmv_generations `"`generations'"'
    local llmv_rundoc `"`rundoc'"'
    local llmv_merge_from `"`mergefrom'"'
    local llmv_varnames `"`varnames'"'
    local llmv_task `"`task'"'
    local llmv_provider `"`provider'"'
    local llmv_model `"`model'"'
    local llmv_embedding `"`embedding'"'
    local llmv_embedding_model `"`embmodel'"'
    local llmv_base_url `"`baseurl'"'
    local llmv_embedding_base_url `"`embbaseurl'"'
    local llmv_cache `"`cache'"'
    local llmv_price_table `"`pricetable'"'
    local llmv_truelabel `"`truelabel'"'
    local llmv_topic `"`topic'"'
    * The key goes from the environment to the plugin in a local that is never expanded here,
    * so it is not shown even under -set trace on-.
    if "`keyenv'" != "" local llmv_apikey : environment `keyenv'
    * The variable's name too: the plugin refuses keyenv() naming a variable that is not set.
    local llmv_keyenv `keyenv'
    * power and cache read no data: no varlist, no sample.
    local sample
    if "`touse'" != "" local sample if `touse'
    capture noisily plugin call llmvalidate_plugin `varlist' `sample', `command' `words'
    local rc = _rc
    local llmv_apikey
    if `rc' exit `rc'

    tempname R
    local store token=`llmv_token' scalars=`R'
    * The per-passage variables first: they hold what a run of many passages is for. A matrix
    * Stata cannot make (past its matrix limit) is left out of r(), with a note, and the rest
    * is stored.
    local newvars
    local i 0
    foreach suffix of local llmv_vars {
        local ++i
        tempvar var_`suffix'
        if substr("`llmv_v`i'_type'", 1, 3) == "str" {
            quietly generate `llmv_v`i'_type' `var_`suffix'' = ""
        }
        else quietly generate `llmv_v`i'_type' `var_`suffix'' = .
        local newvars `newvars' `var_`suffix''
    }
    local made
    local i 0
    foreach key of local llmv_matrices {
        local ++i
        tempname mat_`key'
        capture matrix `mat_`key'' = J(`llmv_m`i'_rows', `llmv_m`i'_cols', .)
        if _rc {
            display as text "(r(`key') left out: a `llmv_m`i'_rows' x `llmv_m`i'_cols' matrix " ///
                "exceeds this Stata's matrix limit)"
            continue
        }
        local made `made' `key'
        local store `store' mat_`key'=`mat_`key''
    }
    capture noisily plugin call llmvalidate_plugin `newvars' `sample', store `store'
    local rc = _rc
    foreach name of local llmv_scalars {
        if `rc' == 0 return scalar `name' = scalar(`R'_`name')
        capture scalar drop `R'_`name'
    }
    if `rc' exit `rc'

    foreach name of local llmv_macros {
        return local `name' `"`llmv_r_`name''"'
    }
    local i 0
    foreach key of local llmv_matrices {
        local ++i
        if !`: list key in made' continue
        foreach part in rn cn re {
            local names_`part'
            foreach name of local llmv_m`i'_`part' {
                local names_`part' `names_`part'' `=strtoname(`"`name'"')'
            }
        }
        * Row equations (r(table11): LLM label:human label) join their row names.
        if "`names_re'" != "" {
            local joined
            forvalues row = 1/`: word count `names_rn'' {
                local joined `joined' `: word `row' of `names_re'':`: word `row' of `names_rn''
            }
            local names_rn `joined'
        }
        matrix rownames `mat_`key'' = `names_rn'
        matrix colnames `mat_`key'' = `names_cn'
        return matrix `key' = `mat_`key''
    }
    if "`generate'" != "" {
        label define llmv_verdict 1 "valid" 2 "invalid" 3 "inconclusive", replace
        local i 0
        foreach suffix of local llmv_vars {
            local ++i
            if "`replace'" != "" capture drop `generate'`suffix'
            rename `var_`suffix'' `generate'`suffix'
            label variable `generate'`suffix' `"`llmv_v`i'_label'"'
            if "`llmv_v`i'_vlab'" != "" label values `generate'`suffix' `llmv_v`i'_vlab'
        }
    }
end

* ---------------------------------------------------------------------------------------------
* llmvalidate test: the statistics on embeddings the user already has, one text per observation.
program define Test, rclass
    version 14.1
    syntax [varlist(numeric default=none)] [if] [in] , LABel(varname)                ///
        PASSage(varname numeric)                                                       ///
        [ EMBMATrix(name) EMBFile(string)                                              ///
          LABELS(string asis) BACKtranslation(varname) REFerence(varname numeric)      ///
          GENerate(name) REPLACE NOTABle                                               ///
          /* BEGIN GENERATED Test-options (the engine's statistics settings) */           ///
          ALPha(string) THReshold(string) VMethod(string) SMethod(string) RULE(string)     ///
          PERMutations(string) SEED(string)                                                ///
          /* END GENERATED */ ]

    marksample touse, novarlist
    quietly count if `touse'
    if r(N) == 0 error 2000
    * An observation whose passage() is missing is left out, as Stata's commands leave out
    * missing values, with a note of how many.
    ExcludeMissing `touse' `passage' "passage()"
    if "`replace'" != "" & "`generate'" == "" {
        display as error "option replace requires generate()"
        exit 198
    }
    CheckNewVariables "`generate'" "verdict tau crit p bt_acc sep_p" "`replace'"
    if `"`seed'"' == "" {
        * -set seed- governs: the engine's seed is drawn from Stata's random-number generator.
        local seed = strofreal(runiformint(1, 2147483646), "%12.0f")
    }

    tempvar labeltext bttext
    AsString `label' `labeltext'
    local variables `labeltext' `passage'
    local names `label' `passage'
    local bt_position 0
    if "`backtranslation'" != "" {
        AsString `backtranslation' `bttext'
        local variables `variables' `bttext'
        local names `names' `backtranslation'
        local bt_position : word count `variables'
    }
    local ref_position 0
    if "`reference'" != "" {
        local variables `variables' `reference'
        local names `names' `reference'
        local ref_position : word count `variables'
    }
    * The embeddings: variables, or a matrix or a CSV file with a row per observation (the
    * plugin checks that exactly one is given).
    local embed_position = `: word count `variables'' + 1
    local dim : word count `varlist'
    if "`varlist'" == "" local embed_position 0
    local variables `variables' `varlist'
    local names `names' `varlist'

    local words label=1 passage=2 bt=`bt_position' ref=`ref_position' embed=`embed_position'
    local words `words' dim=`dim' generate=`=("`generate'" != "")' seed=`seed'
    * The engine's settings, each only when given: the engine's table holds the defaults, and
    * the plugin checks each value and names the option.
    foreach setting in /* BEGIN GENERATED Test-names */                                    ///
        alpha threshold vmethod smethod rule permutations                                  ///
        /* END GENERATED */ {
        if `"``setting''"' != "" local words `words' `setting'=``setting''
    }

    RunPlugin `variables', touse(`touse') command(test) words(`words')        ///
        generate(`generate') `replace' labels(`labels') varnames(`names')     ///
        embmatrix(`embmatrix') embfile(`"`embfile'"')
    return add
    return local cmd "llmvalidate"
    return local subcmd "test"
    * e(): the statistics for esttab; e(sample) marks the passages.
    quietly replace `touse' = 0 if `passage' == 0
    PostResults test `touse'
    if "`notable'" == "" ShowResults
end

* ---------------------------------------------------------------------------------------------
* llmvalidate varname, task(): validates the passages of a string variable with LLM calls.
program define Validate, rclass
    version 14.1
    syntax varname [if] [in] ,                                                        ///
        [ TASK(string) LABELS(string asis) ANNotation(string) SIMulation(string)      ///
          VARS(string asis) SIMPrompt(varname string)                                 ///
          PROVider(string) MODel(string) EMBedding(string) EMBMODel(string)           ///
          BASEurl(string) PAPER EMBBASEurl(string) HUMan(varname)                     ///
          CACHE(string) NOCACHE KEYenv(name) GENerate(name)                           ///
          REPLACE DRYrun NOTABle BATCHapi NOWAIT SAVing(string asis) NOMATrix continue ///
          /* BEGIN GENERATED Validate-options (the engine's settings table) */            ///
          M(string) N(string) REPeats(string) ALPha(string) THReshold(string)              ///
          VMethod(string) SMethod(string) RULE(string) PERMutations(string) SEED(string)   ///
          CONCurrency(string) TEMPerature(string) STRuctured(string)                       ///
          ANSwerformat(string) REASONeffort(string) PARSERetries(string)                   ///
          MAXRetries(string) TIMEout(string) DRAIN(string) POLLinterval(string)            ///
          ENCoding(string) MAXPASSagebytes(string)                                         ///
          /* END GENERATED */ ]

    capture confirm string variable `varlist'
    if _rc {
        display as error "`varlist' must be a string variable (str# or strL) holding the passages"
        exit 109
    }
    marksample touse, novarlist
    quietly count if `touse'
    if r(N) == 0 error 2000
    * An observation whose passage is missing (an empty string) is left out, with a note of how
    * many; a passage of white space only is an error (the plugin names the observation).
    ExcludeMissing `touse' `varlist' "`varlist'"
    if "`replace'" != "" & "`generate'" == "" {
        display as error "option replace requires generate()"
        exit 198
    }
    if "`dryrun'" == "" {
        CheckNewVariables "`generate'" "label verdict tau crit p bt_acc sep_p p_bh" "`replace'"
    }
    if `"`seed'"' == "" {
        local seed = strofreal(runiformint(1, 2147483646), "%12.0f")
    }

    * saving(filename [, replace]): a dataset of what the model wrote and answered.
    local savefile
    local gencsv
    if `"`saving'"' != "" & "`dryrun'" == "" {
        ParseSaving `saving'
        local savefile `"`s(filename)'"'
        local savereplace `s(replace)'
        tempfile gencsv
    }

    * The run document that llmvalidate report renders: the last run's, in Stata's temporary
    * folder (and copied beside saving()'s dataset after the run).
    if "`dryrun'" == "" global LLMV_LAST_RUN `"`c(tmpdir)'/llmvalidate_last_run.json"'
    else global LLMV_LAST_RUN

    * task(), or a task from labels(), annotation() and simulation() (the plugin checks that
    * exactly one of the two is given).
    local taskfile
    if `"`task'"' != "" FindTask `"`task'"' taskfile
    * Every answer is paid for: cached by default, in the cache the command-line tool and R use.
    if `"`cache'"' != "" & "`nocache'" != "" {
        display as error "options cache() and nocache may not be combined"
        exit 198
    }
    if "`nocache'" == "" DefaultCache `"`cache'"' cache
    * Keys come from the environment, never from the command line. Without keyenv(), the
    * engine reads each provider's own variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...: one
    * table, docs/providers.md); keyenv() names another variable for the chat provider's key
    * only, so one vendor's key never reaches another.

    local variables `varlist'
    local human_position 0
    if "`human'" != "" {
        tempvar humantext
        AsString `human' `humantext'
        local variables `variables' `humantext'
        local human_position 2
    }
    * simprompt(): a simulation prompt per passage.
    local simprompt_position 0
    if "`simprompt'" != "" {
        local variables `variables' `simprompt'
        local simprompt_position : word count `variables'
    }
    * vars(NAME=varname ...): a string copy of each variable, after the others; the plugin says
    * which variables vars() names and reports a name that is not a variable.
    local varstart = `: word count `variables'' + 1
    local llmv_taskvars_found
    if `"`vars'"' != "" {
        local llmv_taskvars `"`vars'"'
        plugin call llmvalidate_plugin, varsvariables
        foreach name of local llmv_taskvars_variables {
            capture confirm variable `name', exact
            if _rc continue
            tempvar copy
            AsString `name' `copy'
            local variables `variables' `copy'
            local llmv_taskvars_found `llmv_taskvars_found' `name'
        }
    }
    local words text=1 human=`human_position' simprompt=`simprompt_position' varstart=`varstart'
    local words `words' generate=`=("`generate'" != "" & "`dryrun'" == "")' seed=`seed'
    * The engine's settings, each only when given: the engine's table holds the defaults (the
    * paper preset its own values), and the plugin checks each value and names the option.
    * The options and names between GENERATED markers are written from the engine's table
    * (cmake --build build --target generate-docs); edit cpp/settings/table.cpp.
    foreach setting in /* BEGIN GENERATED Validate-names */                                ///
        m n repeats alpha threshold vmethod smethod rule permutations concurrency          ///
        temperature structured answerformat reasoneffort parseretries maxretries timeout   ///
        drain pollinterval encoding maxpassagebytes                                        ///
        /* END GENERATED */ {
        if `"``setting''"' != "" local words `words' `setting'=``setting''
    }
    local words `words' dryrun=`=("`dryrun'" != "")'
    if "`batchapi'" != "" local words `words' batchapi=1
    if "`nowait'" != "" & "`batchapi'" == "" {
        display as error "option nowait requires batchapi (only provider batches can be collected later)"
        exit 198
    }
    if "`nowait'" != "" local words `words' nowait=1
    * Without continue, a run in which no passage could be validated is an error (its rc).
    local words `words' continue=`=("`continue'" != "")'
    * r(results) has a row per passage: no larger than this Stata's matrices can be.
    local matrixmax = c(matsize)
    capture local matrixmax = c(max_matdim)
    if missing(`matrixmax') local matrixmax = c(matsize)
    local words `words' matrix=`=("`nomatrix'" == "")' matrixmax=`matrixmax'
    * paper: the engine's preset (its bootstrap tests, structured(none)); options given win.
    if "`paper'" != "" local words `words' preset=paper

    * The dry run's and the run's dollars: the price table net install put on the ado-path.
    local pricefile
    capture findfile llmvalidate_prices.csv
    if !_rc local pricefile `"`r(fn)'"'

    RunPlugin `variables', touse(`touse') command(validate) words(`words')          ///
        varnames(`varlist') generate(`generate') `replace' task(`taskfile')         ///
        provider(`provider')                                                        ///
        model(`model') embedding(`embedding') embmodel(`embmodel') baseurl(`baseurl') ///
        embbaseurl(`embbaseurl') cache(`cache') keyenv(`keyenv') generations(`gencsv') ///
        rundoc(`"$LLMV_LAST_RUN"')                                                  ///
        labels(`labels') annotation(`"`annotation'"') simulation(`"`simulation'"')    ///
        vars(`vars') varsfound(`llmv_taskvars_found') pricetable(`pricefile')
    return add
    * The results table below reads r(): keep it through the import of the generations.
    if `"`savefile'"' != "" {
        tempname held
        _return hold `held'
        SaveGenerations `"`gencsv'"' `"`savefile'"' `savereplace'
        _return restore `held'
        * The run document beside the dataset: llmvalidate report using F.html, run(F.run.json).
        local savedoc `"`savefile'"'
        if substr(`"`savedoc'"', -4, .) == ".dta" {
            local savedoc = substr(`"`savedoc'"', 1, strlen(`"`savedoc'"') - 4)
        }
        capture confirm file `"$LLMV_LAST_RUN"'
        if !_rc copy `"$LLMV_LAST_RUN"' `"`savedoc'.run.json"', replace
    }
    return local cmd "llmvalidate"
    return local subcmd "validate"
    return local task `"`taskfile'"'
    * nowait: the batches are out; r(waiting) says so and there is no result yet.
    if "`return(waiting)'" == "1" exit
    * What the run returned says how to show it (the engine chose the route): e() holds the
    * statistics for esttab, except after a dry run, which computes none.
    if "`return(dryrun)'" != "yes" PostResults validate `touse'
    if "`notable'" == "" {
        if "`return(dryrun)'" == "yes" ShowDryRun
        else ShowResults
    }
end

* saving(filename [, replace]): the file (.dta added when it has no extension) and replace.
* lint: internal
program define ParseSaving, sclass
    version 14.1
    syntax anything(name=filename id="filename") [, REPLACE ]
    local filename `filename'
    if !regexm(`"`filename'"', "\.[A-Za-z0-9]+$") local filename `"`filename'.dta"'
    if "`replace'" == "" confirm new file `"`filename'"'
    sreturn local filename `"`filename'"'
    sreturn local replace `replace'
end

* The generations the plugin wrote (CSV) as a Stata dataset: one observation per annotation of a
* passage and per generated text. The data in memory are left as they were.
program define SaveGenerations
    version 14.1
    args csv filename replace
    preserve
    quietly import delimited using `"`csv'"', clear varnames(1) stringcols(_all) ///
        bindquote(strict) encoding("utf-8")
    quietly destring index id draw, replace
    rename id obs
    label variable index "passage, in the order validated"
    label variable obs "observation of the passage"
    label variable kind "annotation (of the passage) or simulation (a generated text)"
    label variable label "label the text was written for"
    label variable draw "draw: annotation r, or position in the label's pool"
    label variable text "the passage (annotation) or the generated text"
    label variable answer "label the model gave (backtranslated label for a generated text)"
    label variable model "chat model"
    label variable prompt_hash "SHA-256 of the prompt"
    quietly save `"`filename'"', `replace'
    restore
    display as text `"(generations saved to `filename')"'
end

* task(): a TOML task file; or a shipped task by its name or an alias (sentiment), which the
* plugin resolves from the engine's task catalog and findfile finds along the ado-path (net
* install puts the task files there); or a task file of your own on the ado-path, by its name.
* The file's path is left in the caller's local named by the second argument.
program define FindTask
    version 14.1
    args task target
    local taskfile `"`task'"'
    capture confirm file `"`taskfile'"'
    if _rc {
        local llmv_task `"`task'"'
        plugin call llmvalidate_plugin, task
        local name `"`llmv_task_name'"'
        if `"`name'"' == "" local name `"`task'"'
        capture findfile `"`name'.toml"'
        if _rc & `"`llmv_task_name'"' != "" {
            display as error `"task(): the shipped task `name' (file `name'.toml) is not on the ado-path;"'
            display as error "{p 4 4 2}reinstall with {bf:net install llmvalidate, replace}, which installs the task files.{p_end}"
            exit 601
        }
        if _rc {
            display as error `"task(): `task' is neither a task file nor a task on the ado-path"'
            display as error `"{p 4 4 2}Shipped tasks: `llmv_tasks'; or give a .toml file of your own.{p_end}"'
            exit 601
        }
        local taskfile `"`r(fn)'"'
    }
    c_local `target' `"`taskfile'"'
end

* The cache file: the one given, else the engine's default, the per-user cache the
* command-line tool and R share ($LLMV_CACHE, else a file in the user's cache directory),
* which the plugin names; left in the caller's local named by argument 2.
program define DefaultCache
    version 14.1
    args given target
    local file `"`given'"'
    if `"`file'"' == "" {
        plugin call llmvalidate_plugin, cachepath
        local file `"`llmv_cache_path'"'
    }
    c_local `target' `"`file'"'
end

* ---------------------------------------------------------------------------------------------
* llmvalidate sample, n() generate(): marks a reproducible sample of the observations, drawn by
* the engine's sampler: the same seed draws the same rows as the command-line tool's batch
* --sample N --sample-seed S --where COL=V and R's llm_sample(), rows being observations in
* the order of the data. if, in and where() choose the observations drawn from.
program define Sample, rclass
    version 14.1
    syntax [if] [in] , N(integer) GENerate(name) [ SEED(string) WHERE(string) REPLACE ]
    marksample touse, novarlist
    quietly count if `touse'
    if r(N) == 0 error 2000
    if "`replace'" == "" confirm new variable `generate'
    * Without seed(), the engine's default seed (as in the CLI and R), not Stata's generator:
    * the sample is the same everywhere.
    local seedword
    if `"`seed'"' != "" local seedword seed=`seed'
    local llmv_where `"`where'"'
    local copies
    local llmv_where_vars
    if `"`where'"' != "" {
        plugin call llmvalidate_plugin, wherecolumns
        foreach name of local llmv_where_columns {
            capture confirm variable `name', exact
            if _rc continue
            tempvar copy
            AsString `name' `copy'
            local copies `copies' `copy'
            local llmv_where_vars `llmv_where_vars' `name'
        }
    }
    tempvar marker
    quietly generate byte `marker' = 0
    plugin call llmvalidate_plugin `marker' `copies' if `touse', sample n=`n' `seedword'
    if "`replace'" != "" capture drop `generate'
    rename `marker' `generate'
    label variable `generate' `"llmvalidate sample: n(`n') seed(`llmv_sample_seed')"'
    return scalar N = `llmv_sample_n'
    return scalar N_population = `llmv_sample_population'
    return local seed `llmv_sample_seed'
    return local where `"`where'"'
    return local cmd "llmvalidate"
    return local subcmd "sample"
    display as text "(`llmv_sample_n' of `llmv_sample_population' observations drawn into " ///
        "`generate', seed `llmv_sample_seed')"
end

* ---------------------------------------------------------------------------------------------
* llmvalidate power, task(): how often each test passes, by simulation with the simulated
* provider's synthetic data-generating process. Reads no data and calls no LLM.
program define Power, rclass
    version 14.1
    syntax , TASK(string)                                                              ///
        [ TRUElabel(string) REPLications(string) TOPic(string) NOTABle                  ///
          /* BEGIN GENERATED Power-options (statistics and simulated-provider settings) */ ///
          M(string) N(string) REPeats(string) ALPha(string) THReshold(string)              ///
          VMethod(string) SMethod(string) RULE(string) PERMutations(string) SEED(string)   ///
          CONCurrency(string) FOLlow(string) SIGnal(string) ACCuracy(string)               ///
          UNParseable(string) WORDs(string) DGPseed(string)                                ///
          /* END GENERATED */ ]

    * -set seed- governs both the tests' seed and the data-generating process's.
    if `"`seed'"' == "" local seed = strofreal(runiformint(1, 2147483646), "%12.0f")
    if `"`dgpseed'"' == "" local dgpseed = strofreal(runiformint(1, 2147483646), "%12.0f")
    FindTask `"`task'"' taskfile

    * The option words() owns the local words; the plugin's arguments are built in local call.
    local call seed=`seed' dgpseed=`dgpseed'
    * The engine's settings (and replications()), each only when given: the engine holds the
    * defaults, and the plugin checks each value and names the option.
    foreach setting in replications /* BEGIN GENERATED Power-names */                      ///
        m n repeats alpha threshold vmethod smethod rule permutations concurrency follow   ///
        signal accuracy unparseable words                                                  ///
        /* END GENERATED */ {
        if `"``setting''"' != "" local call `call' `setting'=``setting''
    }

    RunPlugin, command(power) words(`call') task(`taskfile') truelabel(`truelabel') ///
        topic(`topic')
    return add
    return local cmd "llmvalidate"
    return local subcmd "power"
    return local task `"`taskfile'"'
    if "`notable'" == "" ShowPower
end

* ---------------------------------------------------------------------------------------------
* llmvalidate cache [describe] using file / llmvalidate cache clear using file [, model()]
program define Cache, rclass
    version 14.1
    gettoken action rest : 0, parse(" ,")
    if inlist(`"`action'"', "", ",", "using") {
        local action describe
        local rest `"`0'"'
    }
    if !inlist(`"`action'"', "describe", "clear", "merge") {
        display as error `"llmvalidate cache: subcommand `action' is not allowed; allowed: describe, clear, merge"'
        exit 198
    }
    local 0 `"`rest'"'
    syntax [using/] [, MODel(string) FROM(string asis) NOTABle]
    DefaultCache `"`using'"' using
    if "`model'" != "" & "`action'" != "clear" {
        display as error "option model() is allowed only with llmvalidate cache clear"
        exit 198
    }
    * merge: the caches of a sharded job (one per machine), added to this one.
    if `"`from'"' != "" & "`action'" != "merge" {
        display as error "option from() is allowed only with llmvalidate cache merge"
        exit 198
    }
    if `"`from'"' == "" & "`action'" == "merge" {
        display as error "llmvalidate cache merge needs from(): the cache files to add"
        exit 198
    }
    RunPlugin, command(cache) words(action=`action') cache(`using') model(`model')     ///
        mergefrom(`from')
    return add
    return local cmd "llmvalidate"
    return local subcmd "cache"
    if "`notable'" == "" ShowCache
end

* ---------------------------------------------------------------------------------------------
* llmvalidate report using FILE.html [, replace run(RUN.json)]: the run's HTML report, rendered
* by the engine (the same file as the command-line tool's llmvalidate report and R's
* llm_report()): of the last run, or of a run document (saving()'s FILE.run.json, or the
* command-line tool's --run-json).
program define Report, rclass
    version 14.1
    syntax using/ [, REPlace RUN(string)]
    local llmv_rundoc `"`run'"'
    if `"`llmv_rundoc'"' == "" local llmv_rundoc `"$LLMV_LAST_RUN"'
    if `"`llmv_rundoc'"' == "" {
        display as error "llmvalidate report: no run yet; run llmvalidate varname, task(...) first, or give run()"
        exit 601
    }
    local llmv_report `"`using'"'
    plugin call llmvalidate_plugin, report replace=`=("`replace'" != "")'
    return local report `"`using'"'
    return local run `"`llmv_rundoc'"'
    return local subcmd "report"
end

* llmvalidate overview stub1 stub2 ...: the paper's Tables 7 and 8 from the variables earlier
* runs made with generate(stub): a row per observation, a column per run (a task, or a model),
* each cell "label (verdict)", in the layout of the command-line tool's overview (the plugin
* prints it). titles() names the rows (else the observation numbers), names() the columns
* (else the stubs).
program define Overview, rclass
    version 14.1
    syntax namelist [if] [in] [, TItles(varname) NAMes(string asis) ]
    marksample touse, novarlist
    quietly count if `touse'
    if r(N) == 0 error 2000
    local variables
    foreach stub of local namelist {
        capture confirm string variable `stub'label, exact
        if _rc {
            display as error "overview: `stub' is not the generate() prefix of a run: "  ///
                "`stub'label is not a string variable"
            exit 111
        }
        capture confirm numeric variable `stub'verdict, exact
        if _rc {
            display as error "overview: `stub' is not the generate() prefix of a run: "  ///
                "`stub'verdict is not a numeric variable"
            exit 111
        }
        local variables `variables' `stub'label `stub'verdict
    }
    local columns : word count `namelist'
    local llmv_stubs `namelist'
    local llmv_headers `namelist'
    if `"`names'"' != "" {
        local llmv_headers `names'
        if `: word count `llmv_headers'' != `columns' {
            display as error "option names() must give one name per prefix (`columns'); "  ///
                `"received `: word count `llmv_headers'': `names'"'
            exit 198
        }
    }
    local hastitles 0
    if "`titles'" != "" {
        tempvar titletext
        AsString `titles' `titletext'
        local variables `variables' `titletext'
        local hastitles 1
    }
    plugin call llmvalidate_plugin `variables' if `touse', overview columns=`columns' ///
        titles=`hastitles'
    return scalar N = `llmv_overview_n'
    return local columns `"`llmv_headers'"'
    return local valid "`llmv_overview_valid'"
    return local cmd "llmvalidate"
    return local subcmd "overview"
end

* ---------------------------------------------------------------------------------------------
* llmvalidate models, provider(): the models the vendor serves to your credentials, read from
* its API (the plugin lists them), with the engine's defaults and the priced ones marked.
program define Models, rclass
    version 14.1
    syntax , PROVider(string) [ BASEurl(string) KEYenv(name) NOTABle ]
    local pricefile
    capture findfile llmvalidate_prices.csv
    if !_rc local pricefile `"`r(fn)'"'
    RunPlugin, command(models) words(quiet=`=("`notable'" != "")') provider(`provider')   ///
        baseurl(`baseurl') keyenv(`keyenv') pricetable(`pricefile')
    return add
    return local cmd "llmvalidate"
    return local subcmd "models"
end

* Leaves out of the sample (the marker `touse') the observations whose variable is missing (a
* numeric . or an empty string), with a note of how many; none left is r(2000).
program define ExcludeMissing
    version 14.1
    args touse variable what
    quietly count if `touse'
    local before = r(N)
    markout `touse' `variable', strok
    quietly count if `touse'
    local left = `before' - r(N)
    if `left' > 0 {
        display as text "(`left' " plural(`left', "observation") " with `what' missing left out)"
    }
    if r(N) == 0 error 2000
end

* e() for esttab and for the replay: the statistics as a coefficient vector e(b), their
* critical values and p-values as e(crit) and e(pvalue) (the same columns), every scalar and
* macro of r() (e(N): the passages, as r(N)), e(sample) the passages. One passage: the columns
* validation:tau, separation:<label> (xi of each other label) and, with backtranslation,
* backtranslation:accuracy (its critical value the threshold, no p-value). Many passages: the
* tau of each passage validated, tau:obs<observation>. Reads r() and leaves it as it was.
* lint: internal
program define PostResults, eclass
    version 14.1
    args subcmd touse
    tempname b crit pvalue S R
    local names
    if r(N) == 1 & "`r(verdict)'" != "" {
        matrix `b' = (r(tau))
        matrix `crit' = (r(crit))
        matrix `pvalue' = (r(p))
        local names validation:tau
        capture matrix `S' = r(separation)
        if _rc == 0 {
            local rows : rownames `S'
            forvalues i = 1/`=rowsof(`S')' {
                matrix `b' = `b', `S'[`i', 1]
                matrix `crit' = `crit', `S'[`i', 2]
                matrix `pvalue' = `pvalue', `S'[`i', 3]
                local names `names' separation:`: word `i' of `rows''
            }
        }
        if !missing(r(accuracy)) {
            matrix `b' = `b', (r(accuracy))
            matrix `crit' = `crit', (r(threshold))
            matrix `pvalue' = `pvalue', (.)
            local names `names' backtranslation:accuracy
        }
    }
    else {
        capture matrix `R' = r(results)
        if _rc == 0 {
            forvalues i = 1/`=rowsof(`R')' {
                if missing(`R'[`i', 2]) continue
                matrix `b' = nullmat(`b'), `R'[`i', 2]
                matrix `crit' = nullmat(`crit'), `R'[`i', 3]
                matrix `pvalue' = nullmat(`pvalue'), `R'[`i', 4]
                local names `names' tau:obs`=`R'[`i', 1]'
            }
        }
    }
    local N = r(N)
    local scalars : r(scalars)
    local macros : r(macros)
    tempname hold
    _return hold `hold'
    if "`names'" != "" {
        matrix colnames `b' = `names'
        matrix colnames `crit' = `names'
        matrix colnames `pvalue' = `names'
        ereturn post `b', obs(`N') esample(`touse')
        ereturn matrix crit = `crit'
        ereturn matrix pvalue = `pvalue'
    }
    else ereturn post, obs(`N') esample(`touse')
    _return restore `hold', hold
    foreach name of local scalars {
        if "`name'" != "N" ereturn scalar `name' = r(`name')
    }
    foreach name of local macros {
        if !inlist("`name'", "cmd", "subcmd") ereturn local `name' `"`r(`name')'"'
    }
    _return restore `hold'
    ereturn local title "Validation of LLM annotations (Hansen 2026)"
    ereturn local subcmd "`subcmd'"
    ereturn local cmd "llmvalidate"
end

* llmvalidate alone: the statistics of the last llmvalidate or llmvalidate test, from e().
program define Replay
    version 14.1
    if `"`e(cmd)'"' != "llmvalidate" error 301
    display
    display as text "`e(title)'" _col(49) "Number of passages" _col(68) "= " as result %8.0f e(N)
    display as text _col(49) "Alpha" _col(68) "= " as result %8.3g e(alpha)
    display as text _col(49) "Seed" _col(68) "= " as result %8s "`e(seed)'"
    tempname B C P
    capture matrix `B' = e(b)
    if _rc == 0 {
        matrix `C' = e(crit)
        matrix `P' = e(pvalue)
        local names : colfullnames `B'
        display as text "{hline 31}{c TT}{hline 36}"
        display as text _col(32) "{c |}  Statistic  Crit. value    p-value"
        display as text "{hline 31}{c +}{hline 36}"
        forvalues j = 1/`=colsof(`B')' {
            display as text %30s abbrev("`: word `j' of `names''", 30) " {c |}" as result ///
                %11.6f `B'[1, `j'] %13.6f `C'[1, `j'] %11.4f `P'[1, `j']
        }
        display as text "{hline 31}{c BT}{hline 36}"
    }
    if "`e(verdict)'" != "" {
        display as text "Verdict: " as result "`e(verdict)'" as text " -- `e(reason)'"
    }
    else {
        display as text "Verdicts: " as result e(N_valid) as text " valid, " as result    ///
            e(N_invalid) as text " invalid, " as result e(N_inconclusive) as text " inconclusive"
    }
end

* ---------------------------------------------------------------------------------------------
* Output. Reads r() and changes nothing.
program define ShowResults
    version 14.1
    if r(N) == 1 & "`r(verdict)'" != "" ShowOne
    else ShowMany
end

program define ShowOne
    version 14.1
    local bt_run = !missing(r(accuracy))
    display
    display as text "Validation of an LLM annotation (Hansen 2026)" ///
        _col(49) "Label" _col(67) "= " as result %10s abbrev(`"`r(label)'"', 10)
    display as text _col(49) "Pool size M" _col(67) "= " as result %10.0f r(M)
    display as text _col(49) "Alpha" _col(67) "= " as result %10.3g r(alpha)
    display as text _col(49) "Seed" _col(67) "= " as result %10s "`r(seed)'"
    display as text "{hline 22}{c TT}{hline 55}"
    display as text _col(23) "{c |}  Statistic  Crit. value    p-value   Result"
    display as text "{hline 22}{c +}{hline 55}"
    local result = cond(r(reject) == 1, "rejected", "not rejected")
    display as text %21s "Validation (`r(vmethod)')" " {c |}" as result ///
        _col(26) %9.6f r(tau) _col(37) %11.6f r(crit) _col(50) %9.4f r(p) ///
        as text _col(63) "`result'"
    tempname S
    capture matrix `S' = r(separation)
    if _rc == 0 {
        local rows : rownames `S'
        forvalues i = 1/`=rowsof(`S')' {
            local name : word `i' of `rows'
            local result = cond(`S'[`i', 4] == 1, "pass", "fail")
            display as text %21s abbrev("vs `name'", 21) " {c |}" as result ///
                _col(26) %9.6f `S'[`i', 1] _col(37) %11.6f `S'[`i', 2]        ///
                _col(50) %9.4f `S'[`i', 3] as text _col(63) "`result'"
        }
    }
    else {
        display as text %21s "Separation" " {c |}" _col(26) "(no other pool given)"
    }
    if `bt_run' {
        local result = cond(r(bt_pass) == 1, "pass", "fail")
        display as text %21s "Backtranslation" " {c |}" as result _col(26) %9.4f r(accuracy) ///
            as text _col(37) "lower bd " as result %5.3f r(acc_lb)                           ///
            as text _col(52) "rule `r(rule)' " %4.2f r(threshold) _col(63) "`result'"
    }
    else {
        display as text %21s "Backtranslation" " {c |}" _col(26) "not run (no backtranslation())"
    }
    display as text "{hline 22}{c BT}{hline 55}"
    local colour = cond("`r(verdict)'" == "valid", "result", cond("`r(verdict)'" == "invalid", "error", "text"))
    display as text "Verdict: " as `colour' "`r(verdict)'" as text " -- `r(reason)'"
end

program define ShowMany
    version 14.1
    display
    display as text "Validation of LLM annotations (Hansen 2026)" ///
        _col(49) "Number of passages" _col(68) "= " as result %8.0f r(N)
    display as text _col(49) "Alpha" _col(68) "= " as result %8.3g r(alpha)
    display as text _col(49) "Seed" _col(68) "= " as result %8s "`r(seed)'"
    display as text "{hline 13}{c TT}{hline 23}"
    display as text "     Verdict {c |}      Freq.    Percent"
    display as text "{hline 13}{c +}{hline 23}"
    foreach v in valid invalid inconclusive failed {
        local count = r(N_`v')
        if "`v'" == "failed" & (`count' == 0 | missing(`count')) continue
        display as text %12s "`v'" " {c |}" as result %11.0f `count' %11.2f 100 * `count' / r(N)
    }
    display as text "{hline 13}{c +}{hline 23}"
    display as text %12s "Total" " {c |}" as result %11.0f r(N) %11.2f 100
    display as text "{hline 13}{c BT}{hline 23}"
    if !missing(r(share_valid)) {
        display as text "Share valid among passages whose prerequisites pass: " ///
            as result %6.4f r(share_valid)
    }
    else display as text "No passage passed its prerequisites: no share valid."
    * Table 9 of the paper, by LLM label (llmvalidate varname): r(table9).
    tempname T
    capture matrix `T' = r(table9)
    if _rc == 0 {
        local human = !missing(`T'[1, 5])
        display
        display as text "Table 9: passages whose prerequisites pass, by LLM label"
        display as text "{hline 13}{c TT}{hline 33}" cond(`human', "{hline 12}", "")
        * Shares in percent, as the paper prints them (r(table9) keeps fractions).
        display as text "   LLM label {c |}          n      valid  share %" ///
            cond(`human', " agreeing, %", "")
        display as text "{hline 13}{c +}{hline 33}" cond(`human', "{hline 12}", "")
        local rows : rownames `T'
        forvalues i = 1/`=rowsof(`T')' {
            local name : word `i' of `rows'
            display as text %12s abbrev("`name'", 12) " {c |}" as result %11.0f `T'[`i', 1] ///
                %11.0f `T'[`i', 2] %9.2f 100 * `T'[`i', 3] _continue
            if `human' display as result %12.2f 100 * `T'[`i', 5]
            else display
        }
        display as text "{hline 13}{c BT}{hline 33}" cond(`human', "{hline 12}", "")
        capture matrix `T' = r(table10)
        if _rc == 0 display as text "Table 10 (LLM label x human label): {cmd:matrix list r(table10)}"
        capture matrix `T' = r(table11)
        if _rc == 0 {
            display as text "Table 11 (" as result rowsof(`T') as text " passages whose LLM " ///
                "label differs from the human label and is valid): {cmd:matrix list r(table11)}"
        }
    }
end

program define ShowPower
    version 14.1
    display
    display as text "{p 0 0 2}SYNTHETIC: power by simulation with the simulated provider's "   ///
        "data-generating process; no LLM was called.{p_end}"
    display as text "Power of the validation tests (simulation)" ///
        _col(49) "Replications" _col(67) "= " as result %10.0f r(replications)
    display as text _col(49) "Pool size M" _col(67) "= " as result %10.0f r(M)
    display as text _col(49) "Alpha" _col(67) "= " as result %10.3g r(alpha)
    display as text _col(49) "True label" _col(67) "= " as result %10s abbrev(`"`r(true_label)'"', 10)
    display as text _col(49) "Follow / accuracy" _col(67) "= " as result %4.2f r(follow) ///
        as text " / " as result %4.2f r(accuracy)
    display as text "{hline 37}{c TT}{hline 11}"
    display as text _col(38) "{c |}      Share"
    display as text "{hline 37}{c +}{hline 11}"
    tempname P
    matrix `P' = r(power)
    local labels `""Annotation correct" "Backtranslation passes" "Every separation passes""'
    local labels `"`labels' "Validity not rejected" "Verdict valid" "Verdict invalid""'
    local labels `"`labels' "Verdict inconclusive" "Valid | annotation correct""'
    local labels `"`labels' "Invalid | annotation wrong""'
    local i 0
    foreach label of local labels {
        local ++i
        display as text %36s "`label'" " {c |}" as result %11.4f `P'[`i', 1]
    }
    display as text "{hline 37}{c BT}{hline 11}"
    display as text "Monte Carlo standard error of P(valid): " as result %6.4f r(se_valid)
end

program define ShowCache
    version 14.1
    display
    display as text `"Cache {res}`r(using)'{txt}: "' as result r(entries) as text " entries (" ///
        as result r(ok_entries) as text " parsed, " as result r(other_entries)                ///
        as text " unparseable, invalid or refused), " as result r(size_bytes) as text " bytes"
    if r(N_models) > 0 {
        tempname C
        matrix `C' = r(models)
        display as text "{hline 35}{c TT}{hline 44}"
        display as text %34s "provider/model" " {c |}   Entries        OK   Input tok.  Output tok."
        display as text "{hline 35}{c +}{hline 44}"
        local i 0
        local names `"`r(model_names)'"'
        foreach name of local names {
            local ++i
            display as text %34s abbrev(`"`name'"', 34) " {c |}" as result                 ///
                %10.0f `C'[`i', 1] %10.0f `C'[`i', 2] %13.0f `C'[`i', 3] %13.0f `C'[`i', 4]
        }
        display as text "{hline 35}{c BT}{hline 44}"
    }
end

program define ShowDryRun
    version 14.1
    display
    display as text "Dry run: no call made" _col(49) "Passages" _col(68) "= " as result %10.0f r(N)
    display as text _col(49) "Chat calls" _col(68) "= " as result %10.0f r(calls)
    display as text _col(49) "  already cached" _col(68) "= " as result %10.0f r(cached_calls)
    display as text _col(49) "Texts embedded" _col(68) "= " as result %10.0f r(embedded_texts)
    display as text _col(49) "Input tokens (est.)" _col(68) "= " as result %10.0f r(input_tokens)
    display as text _col(49) "Output tokens (est.)" _col(68) "= " as result %10.0f r(output_tokens)
    display as text _col(49) "Embedding tokens (est.)" _col(68) "= " as result %10.0f r(embedding_tokens)
    if "`r(price_table)'" != "" & missing(r(dollars)) {
        display as text _col(49) "Price" _col(68) "= " as result "   unknown"
        display as text _col(49) "  (not every model is priced)"
    }
    else if "`r(price_table)'" != "" {
        display as text _col(49) "Price, synchronous" _col(68) "= " as result %10.4f r(dollars)
        display as text _col(49) "Price, batch API" _col(68) "= " as result %10.4f r(batch_dollars)
    }
    if `"`r(price_note)'"' != "" display as text `"{p 0 4 2}`r(price_note)'{p_end}"'
    if `"`r(note)'"' != "" display as text `"{p 0 4 2}`r(note)'{p_end}"'
end
