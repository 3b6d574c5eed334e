*! version 0.1.0  01dec2026
*! estadd llmvalidate: add the last llmvalidate results to stored estimates (for esttab)
program define estadd_llmvalidate, eclass
    version 14.1
    * replace and quietly as estadd passes them: without replace, a result already in e() is
    * an error, as for estadd's own subcommands.
    syntax [, Prefix(name) REPLACE Quietly ]
    if `"`r(cmd)'"' != "llmvalidate" {
        display as error "estadd llmvalidate: no llmvalidate results in r(); run llmvalidate first"
        exit 301
    }
    if "`prefix'" == "" local prefix llmv_
    * One passage: its statistics; many passages: the counts and the share valid; power: the
    * shares of replications.
    local names tau crit p reject accuracy acc_lb bt_pass sep_p sep_pass M verdict_code ///
        N N_valid N_invalid N_inconclusive share_valid alpha threshold                 ///
        replications p_correct p_valid p_invalid p_inconclusive p_valid_correct        ///
        p_invalid_wrong se_valid
    local scalars
    foreach name of local names {
        if "`r(`name')'" != "" local scalars `scalars' `name'
    }
    local macros
    foreach name in verdict label seed vmethod smethod rule {
        if `"`r(`name')'"' != "" local macros `macros' `name'
    }
    if "`replace'" == "" {
        foreach name in `scalars' `macros' {
            if `"`e(`prefix'`name')'"' != "" {
                display as error "estadd llmvalidate: e(`prefix'`name') already defined; add option replace"
                exit 110
            }
        }
    }
    foreach name of local scalars {
        ereturn scalar `prefix'`name' = r(`name')
    }
    foreach name of local macros {
        ereturn local `prefix'`name' `"`r(`name')'"'
    }
    if "`quietly'" == "" {
        display as text "added to e(): " as result "`scalars' `macros'" as text " (prefix `prefix')"
    }
end
