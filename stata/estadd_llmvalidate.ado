*! version 0.1.0  01dec2026
*! estadd llmvalidate: add the last llmvalidate results to stored estimates (for esttab)
program define estadd_llmvalidate, eclass
    version 14.1
    syntax [, Prefix(name) ]
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
    foreach name of local names {
        if "`r(`name')'" != "" ereturn scalar `prefix'`name' = r(`name')
    }
    foreach name in verdict label seed vmethod smethod rule {
        if `"`r(`name')'"' != "" ereturn local `prefix'`name' `"`r(`name')'"'
    }
end
