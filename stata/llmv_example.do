* llmv_example.do: the example of -help llmvalidate-, on data that any Stata can build.
* Run it after -net install llmvalidate- and -net get llmvalidate- (which copies this file
* into the current folder) with: do llmv_example.do
* The numbers asserted below are those of the command-line tool (llmvalidate test) on the same
* inputs and seed; the C++ test host (stata/tests/host/test_example.cpp) checks that the plugin
* returns exactly these values on exactly these data, so a Stata user should see them too.
version 14.1
clear all
set more off

* --- The data: 3 labels x 20 pool texts, then 4 passages; 6 embedding dimensions. ---------
* Each text's embedding is a deterministic pseudo-random vector (exact integers divided by
* 101) plus 2 in the dimension of the label it was really written from.
set obs 64
generate long id = _n
generate str8 label = cond(id <= 20, "Positive", cond(id <= 40, "Neutral", "Negative"))
generate byte passage = id > 60
generate str8 truth = label
* The passages: their LLM label, and the label they were really written from.
replace label = "Positive" if id == 61
replace truth = "Positive" if id == 61
replace label = "Negative" if id == 62
replace truth = "Positive" if id == 62
replace label = "Neutral"  if id == 63
replace truth = "Neutral"  if id == 63
replace label = "Positive" if id == 64
replace truth = "Positive" if id == 64
forvalues k = 1/6 {
    generate double e`k' = mod(id * `k' * 37 + 11 * `k', 101) / 101
}
replace e1 = e1 + 2 if truth == "Positive"
replace e2 = e2 + 2 if truth == "Neutral"
replace e3 = e3 + 2 if truth == "Negative"
* The LLM labelled its own pool texts back; it got two wrong.
generate str8 llm_back = label if !passage
replace llm_back = "Negative" if inlist(id, 5, 25)

* --- One passage -------------------------------------------------------------------------
llmvalidate test e1-e6 if id <= 61, label(label) passage(passage) ///
    backtranslation(llm_back) labels(Positive Neutral Negative) seed(12345)
assert r(N) == 1
assert "`r(verdict)'" == "valid"
assert "`r(label)'" == "Positive"
assert reldif(r(tau), 0.9529133282207798) < 1e-15
assert reldif(r(crit), 0.9249769260730959) < 1e-15
assert reldif(r(p), 0.6190476190476191) < 1e-15
assert reldif(r(accuracy), 0.95) < 1e-15
assert reldif(r(acc_lb), 0.7838938357931526) < 1e-15
assert reldif(r(sep_p), 0.001) < 1e-15
return list
matrix list r(separation)
matrix list r(counts)
* The same statistics in e(), for esttab: e(b) with e(crit) and e(pvalue) beside it.
assert "`e(cmd)'" == "llmvalidate"
assert e(N) == 1
assert reldif(_b[validation:tau], 0.9529133282207798) < 1e-15
assert reldif(el(e(pvalue), 1, 1), 0.6190476190476191) < 1e-15
assert reldif(_b[backtranslation:accuracy], 0.95) < 1e-15

* Expected on screen (the table; digits as shown):
*   Validation (exact) |   0.952913    0.924977      0.6190   not rejected
*          vs Neutral  |   ...                       0.0010   pass
*          vs Negative |   ...                       0.0010   pass
*      Backtranslation |     0.9500   lower bd 0.784  rule point 0.90   pass
*   Verdict: valid -- ...

* --- Every passage at once, with new variables --------------------------------------------
llmvalidate test e1-e6, label(label) passage(passage) backtranslation(llm_back) ///
    labels(Positive Neutral Negative) seed(12345) generate(v_) replace
assert r(N) == 4
assert r(N_valid) == 3
assert r(N_invalid) == 1
assert r(N_inconclusive) == 0
assert reldif(r(share_valid), 0.75) < 1e-15
* The passage labelled Negative but written as Positive (id 62) is found invalid:
assert v_verdict == 2 if id == 62
assert reldif(v_p, 0.047619047619047616) < 1e-15 if id == 62
assert missing(v_tau) if !passage
tabulate v_verdict
matrix list r(results)

* Expected:
*     v_verdict |      Freq.     Percent        Cum.
*   ------------+-----------------------------------
*         valid |          3       75.00       75.00
*       invalid |          1       25.00      100.00

* --- set seed governs when seed() is not given ---------------------------------------------
set seed 2026
llmvalidate test e1-e6 if id <= 61, label(label) passage(passage) backtranslation(llm_back) notable
local first_seed `r(seed)'
set seed 2026
llmvalidate test e1-e6 if id <= 61, label(label) passage(passage) backtranslation(llm_back) notable
assert "`r(seed)'" == "`first_seed'"

* --- Beside a regression, for esttab (needs estout from SSC) ------------------------------
* llmvalidate posts its statistics in e(); store the regression first, then add them to it.
capture which estadd
if _rc == 0 {
    regress e1 e2
    estimates store ols
    llmvalidate test e1-e6 if id <= 61, label(label) passage(passage) backtranslation(llm_back) seed(12345) notable
    llmvalidate
    esttab, cells("b crit pvalue")
    estadd llmvalidate : ols
    esttab ols, stats(N llmv_tau llmv_p llmv_accuracy)
    estimates restore ols
    assert reldif(e(llmv_tau), 0.9529133282207798) < 1e-15
    assert "`e(llmv_verdict)'" == "valid"
}

* --- Errors are clear and leave the data alone --------------------------------------------
preserve
replace e3 = . in 5
capture noisily llmvalidate test e1-e6, label(label) passage(passage)
assert _rc == 459
* Expected: embedding variable e3 is missing in observation 5; embeddings must be complete
restore
capture noisily llmvalidate test e1-e6, label(label) passage(passage) alpha(1.5)
assert _rc == 198
capture noisily llmvalidate test e1-e6 if id > 100, label(label) passage(passage)
assert _rc == 2000
display as result "llmv_example.do: all checks passed"
