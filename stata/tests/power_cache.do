* power_cache.do: llmvalidate power and llmvalidate cache, for anyone with Stata. Run from the
* repository's stata/tests folder after -net install llmvalidate-. No network: power uses
* the simulated provider's synthetic data-generating process (r(synthetic) says so).
version 14.1
clear all
set more off

local task "../../prompts/simple_sentiment.toml"

* --- Power: 24 replications, pools of M = 8 -------------------------------------------------
llmvalidate power, task("`task'") replications(24) m(8) n(4) threshold(0.75) seed(3) ///
    dgpseed(5) permutations(99) follow(0.9) accuracy(0.8) concurrency(4)
assert "`r(synthetic)'" == "yes"
assert "`r(true_label)'" == "Positive"
assert r(replications) == 24
assert r(N_correct) + r(N_wrong) == 24
assert abs(r(p_valid) + r(p_invalid) + r(p_inconclusive) - 1) < 1e-12
matrix P = r(power)
assert rowsof(P) == 9 & colsof(P) == 1
assert P[5, 1] == r(p_valid)
* With M = 8 the exact validation test cannot reject at alpha = 0.05 (it needs 19 pool texts).
assert r(p_not_rejected) == 1
matrix list P

* Expected (the numbers of the command-line tool's
*   llmvalidate power --task simple_sentiment --replications 24 --pool-size 8 --per-call 4
*     --threshold 0.75 --seed 3 --dgp-seed 5 --permutations 99 --follow 0.9 --accuracy 0.8,
* which the C++ test host checks the plugin against):
*   annotation correct in 19 replications, wrong in 5;
*   P(backtranslation passes) .75, P(every separation passes) .2917, P(valid) .2917,
*   P(inconclusive) .7083, P(valid | annotation correct) .3684.

* --- Cache ---------------------------------------------------------------------------------
* A cache is created by runs with a real provider and cache(); a file that is not there is an
* error, not a new empty cache.
capture noisily llmvalidate cache describe using no_such_cache.sqlite
assert _rc == 601
capture confirm file no_such_cache.sqlite
assert _rc != 0
* With a cache from a real run (e.g. llmvalidate text, task(...) provider(anthropic)
* cache(llmv.sqlite)):
*   llmvalidate cache describe using llmv.sqlite
*   matrix list r(models)
*   llmvalidate cache clear using llmv.sqlite, model(claude-haiku-5-5)
display as result "power_cache.do: all checks passed"
