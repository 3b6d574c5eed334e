* validate.do: llmvalidate varname with LLM calls, tried without a network through the
* `simulated` provider (a documented synthetic data-generating process, not an LLM: every
* result says so in r(synthetic)). Run from the repository's stata/tests folder after
* -net install llmvalidate-. Replace provider(simulated) by provider(anthropic) (and
* export ANTHROPIC_API_KEY before starting Stata) for real calls.
version 14.1
clear all
set more off

local task "../../prompts/simple_sentiment.toml"
set obs 4
generate strL text = ""
replace text = "Demand for the bank's loans rose sharply and clients reported record profits." in 1
replace text = "Clients were hit by falling prices and several defaulted on their loans." in 2
replace text = "" in 3
replace text = "Market conditions were broadly unchanged over the quarter." in 4

* Observation 3 is empty: a passage needs text, so the command stops before any call.
capture noisily llmvalidate text, task("`task'") provider(simulated) m(10) n(5) dryrun
assert _rc == 459

* What a run would cost, without making a call. The empty observation is left out with if.
llmvalidate text if strtrim(text) != "", task("`task'") provider(simulated) m(10) n(5) dryrun
assert r(N) == 3
assert r(calls) > 0

* The run. Observation 3 is outside the sample: its results are missing; nothing else is
* touched. saving() keeps what the simulated model wrote for each passage.
llmvalidate text if strtrim(text) != "", task("`task'") provider(simulated) m(10) n(5) ///
    seed(7) cache(llmv_example.sqlite) generate(v_) saving(llmv_generations, replace)
assert r(N) == 3
assert "`r(synthetic)'" == "yes"
assert r(N_valid) + r(N_invalid) + r(N_inconclusive) + r(N_failed) == 3
assert missing(v_tau) in 3
assert !missing(v_tau) in 1
assert v_label != "" in 1
tabulate v_verdict, missing
matrix list r(results)

* Expected, with provider(simulated):
*   (generations saved to llmv_generations.dta)
*   ...
*   Validation of LLM annotations (Hansen 2026)     Number of passages =        3
*   and a table of the verdicts, then r(results) with one row per passage.

* The same command again gives the same numbers (with a real provider: read from the cache,
* with no call).
preserve
llmvalidate text if strtrim(text) != "", task("`task'") provider(simulated) m(10) n(5) ///
    seed(7) cache(llmv_example.sqlite) generate(w_) notable
assert reldif(v_tau, w_tau) == 0 if !missing(v_tau)
restore

* What the model wrote: for each passage, its annotation and M = 10 texts for each of the
* K = 3 labels.
preserve
use llmv_generations, clear
assert _N == 3 * (1 + 3 * 10)
count if kind == "simulation" & obs == 1
assert r(N) == 30
list obs label draw answer text in 1/3, abbreviate(12)
restore
erase llmv_generations.dta
* A variable of passages named like a subcommand is validated, not taken for the subcommand.
preserve
rename text test
llmvalidate test if strtrim(test) != "", task("`task'") provider(simulated) m(10) n(5) ///
    seed(7) notable
assert r(N) == 3
assert "`r(subcmd)'" == "validate"
restore

* task() by name or alias, as in the command-line tool and R: net install put the shipped task
* files on the ado-path. An unknown name lists the shipped tasks (rc 601).
llmvalidate text if strtrim(text) != "", task(sentiment) provider(simulated) m(10) n(5) dryrun
assert r(N) == 3
assert strpos("`r(task)'", "simple_sentiment.toml") > 0
capture noisily llmvalidate text if strtrim(text) != "", task(sentimnt) provider(simulated) dryrun
assert _rc == 601

* A task variable the passages do not get (the topic task's topic) is an error before any
* call, continue or not; vars() gives it, per passage from a variable or one for all.
capture noisily llmvalidate text if strtrim(text) != "", task(topic) provider(simulated) ///
    m(10) n(5) notable
assert _rc == 198
capture noisily llmvalidate text if strtrim(text) != "", task(topic) provider(simulated) ///
    m(10) n(5) notable continue
assert _rc == 198
generate topic_var = cond(_n == 1, "loan demand", "defaults")
llmvalidate text if strtrim(text) != "", task(topic) vars(topic=topic_var) ///
    provider(simulated) m(20) n(5) notable
assert r(N_succeeded) == 3
capture noisily llmvalidate text if strtrim(text) != "", task(general_sentiment) ///
    provider(simulated) m(20) n(5) notable
assert _rc == 198
llmvalidate text if strtrim(text) != "", task(general_sentiment) ///
    vars(genre="sentences on a bank's clients, one sentence each") provider(simulated) ///
    m(20) n(5) notable
assert r(N_succeeded) == 3

* A task of your own, from its parts.
llmvalidate text if strtrim(text) != "", labels(Good Bad Mixed)                          ///
    annotation("Is this sentence Good, Bad or Mixed for the bank? SENTENCE: {text}")     ///
    simulation("Write {n} sentences on a bank's clients that are {label} for the bank.") ///
    provider(simulated) m(20) n(5) notable
assert r(K) == 3

* Section 5: Tables 9 and 10 and the BH p-values with human labels, and a sample drawn as the
* command-line tool and R draw it.
generate human = cond(_n == 2, "Negative", "Positive")
llmvalidate text if strtrim(text) != "", task(sentiment) provider(simulated) m(20) n(5) ///
    human(human) generate(h_) notable
matrix list r(table9)
matrix list r(table10)
assert colsof(r(table9)) == 5
assert !missing(h_p_bh) in 1
llmvalidate sample if strtrim(text) != "", n(2) seed(1) generate(drawn)
assert r(N) == 2 & r(N_population) == 3
count if drawn
assert r(N) == 2

* The simulated provider caches nothing (its answers cost nothing): there may be no file.
capture erase llmv_example.sqlite
display as result "validate.do: all checks passed"
