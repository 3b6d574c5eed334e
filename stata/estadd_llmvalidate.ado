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
    * llmvalidate posts its own results in e(): adding them to themselves would leave the
    * regression they were meant for without them.
    if `"`e(cmd)'"' == "llmvalidate" {
        display as error "estadd llmvalidate: the active estimates are llmvalidate's own "  ///
            "(llmvalidate posts its statistics in e())"
        display as error "{p 4 4 2}Store the regression before running llmvalidate "           ///
            "({cmd:estimates store} {it:name}), then type {cmd:estadd llmvalidate :} {it:name}.{p_end}"
        exit 301
    }
    if "`prefix'" == "" local prefix llmv_
    * Every scalar the plugin returned (one passage: its statistics; many passages: the
    * counts; power: the shares), as Stata lists them: no list here to fall behind the plugin.
    local scalars : r(scalars)
    local macros
    foreach name in verdict label seed vmethod smethod rule provider model embedding_model {
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
