// The built plugin, dlopen()ed into the fake Stata. Each TEST_CASE loads it afresh.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>

#include "fake_stata.hpp"
#include "fixtures.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

struct TestCall {
    bool backtranslation = true;
    bool generate = true;
    int dim = 6;
    std::string seed = "42";
    std::string alpha = "0.05";
    int permutations = 199;
    std::vector<std::string> extra;

    std::vector<std::string> varlist() const {
        std::vector<std::string> names = {"label", "passage"};
        if (backtranslation) names.push_back("bt");
        for (const auto& e : embedding_names(dim)) names.push_back(e);
        return names;
    }
    std::vector<std::string> words() const {
        std::vector<std::string> w = {"test",
                                      "label=1",
                                      "passage=2",
                                      std::string("bt=") + (backtranslation ? "3" : "0"),
                                      "ref=0",
                                      "embed=" + std::to_string(backtranslation ? 4 : 3),
                                      "dim=" + std::to_string(dim),
                                      std::string("generate=") + (generate ? "1" : "0"),
                                      "alpha=" + alpha,
                                      "seed=" + seed,
                                      "permutations=" + std::to_string(permutations)};
        w.insert(w.end(), extra.begin(), extra.end());
        return w;
    }
};

std::vector<Variable> snapshot(const Stata& stata) { return stata.data; }

// JSON null (a non-finite number in the CLI's output) is Stata's missing in the plugin's.
void require_same(const nlohmann::json& cli, double plugin) {
    if (cli.is_null()) {
        REQUIRE(plugin >= missing());
    } else {
        INFO("CLI " << cli.dump() << " vs plugin " << plugin);
        REQUIRE(same_bits(cli.get<double>(), plugin));
    }
}

}  // namespace

TEST_CASE("pginit returns SPI version 3 and the table is 464 bytes", "[spi]") {
    STATIC_REQUIRE(sizeof(ST_plugin) == 464);
    STATIC_REQUIRE(SD_PLUGINVER == 3);
    Stata stata;
    load_plugin(stata);
    REQUIRE(stata.unexpected.empty());
}

TEST_CASE("version reports the plugin and the interface in locals", "[spi]") {
    Stata stata;
    load_plugin(stata);
    REQUIRE(stata.call({"version"}) == 0);
    REQUIRE(stata.local("llmv_spi") == "3.0");
    REQUIRE_FALSE(stata.local("llmv_version").empty());
    REQUIRE(stata.output.find("llmvalidate plugin") != std::string::npos);
    stata.output.clear();
    REQUIRE(stata.call({"version", "quiet=1"}) == 0);
    REQUIRE(stata.output.empty());
}

TEST_CASE("bad subcommands and arguments give rc 198 and a message, not a crash", "[errors]") {
    Stata stata;
    load_plugin(stata);
    REQUIRE(stata.call({}) == 198);
    REQUIRE(stata.errors.find("no subcommand") != std::string::npos);
    stata.errors.clear();
    REQUIRE(stata.call({"frobnicate"}) == 198);
    REQUIRE(stata.errors.find("frobnicate") != std::string::npos);
    REQUIRE(stata.local("llmv_error").find("frobnicate") != std::string::npos);
    stata.errors.clear();
    REQUIRE(stata.call({"version", "loud"}) == 198);
    REQUIRE(stata.errors.find("key=value") != std::string::npos);
    stata.errors.clear();
    REQUIRE(stata.call({"store", "token=1", "scalars=x"}) == 198);
    REQUIRE(stata.errors.find("no results waiting") != std::string::npos);
}

TEST_CASE("test on one passage returns r() results equal to the CLI's bit for bit",
          "[test][parity]") {
    Stata stata;
    load_plugin(stata);
    Design design;
    const auto texts = make_texts(design, {"Positive"}, {"Positive"});
    load_texts(stata, texts);
    TestCall call;
    const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
    INFO(stata.errors);
    REQUIRE(r.rc == 0);
    REQUIRE(r.store_rc == 0);
    REQUIRE(stata.unexpected.empty());

    const auto cli = nlohmann::json::parse(
        run_cli_test(cli_input_json(texts, texts.size() - 1, design.labels, 42, 0.05, 199, true)));
    require_same(cli["validation"]["statistic"], r.scalars.at("tau"));
    require_same(cli["validation"]["critical_value"], r.scalars.at("crit"));
    require_same(cli["validation"]["p_value"], r.scalars.at("p"));
    REQUIRE(r.scalars.at("reject") == (cli["validation"]["reject"].get<bool>() ? 1.0 : 0.0));
    REQUIRE(r.scalars.at("M") == cli["validation"]["m"].get<double>());
    require_same(cli["backtranslation"]["accuracy"], r.scalars.at("accuracy"));
    require_same(cli["backtranslation"]["lower_bound"], r.scalars.at("acc_lb"));
    REQUIRE(r.macros.at("verdict") == cli["verdict"].get<std::string>());
    REQUIRE(r.macros.at("label") == "Positive");
    REQUIRE(r.macros.at("seed") == "42");

    const auto& separation = cli["separation"];
    const Matrix& sep = r.matrices.at("separation");
    REQUIRE(sep.rows == static_cast<int>(separation.size()));
    REQUIRE(sep.cols == 8);  // the Stata-named fields of a separation result (records.hpp), B among them
    for (int i = 0; i < sep.rows; ++i) {
        const auto& entry = separation[static_cast<std::size_t>(i)];
        REQUIRE(r.matrix_rownames.at("separation")[static_cast<std::size_t>(i)] ==
                entry["label"].get<std::string>());
        require_same(entry["statistic"], sep.at(i + 1, 1));
        require_same(entry["critical_value"], sep.at(i + 1, 2));
        require_same(entry["p_value"], sep.at(i + 1, 3));
        REQUIRE(sep.at(i + 1, 4) == (entry["pass"].get<bool>() ? 1.0 : 0.0));
    }
    // Backtranslation counts: one column per label of S (then any other answer).
    const Matrix& counts = r.matrices.at("counts");
    REQUIRE(counts.rows == 1);
    double total = 0;
    for (int c = 1; c <= counts.cols; ++c) total += counts.at(1, c);
    REQUIRE(total == design.m);

    // The generated variables hold the same numbers, in the passage's observation only.
    const int passage_obs = stata.nobs;
    REQUIRE(same_bits(stata.var("v_tau").numbers[static_cast<std::size_t>(passage_obs - 1)],
                      r.scalars.at("tau")));
    REQUIRE(stata.var("v_verdict").numbers[static_cast<std::size_t>(passage_obs - 1)] ==
            r.scalars.at("verdict_code"));
    for (int obs = 1; obs < passage_obs; ++obs)
        REQUIRE(stata.var("v_tau").numbers[static_cast<std::size_t>(obs - 1)] == missing());
}

TEST_CASE("many passages: one row each, stored only in the marked sample, each equal to the CLI",
          "[test][parity][sample]") {
    Stata stata;
    load_plugin(stata);
    Design design;
    const std::vector<std::string> claimed = {"Positive", "Negative", "Neutral", "Positive"};
    const std::vector<std::string> truth = {"Positive", "Positive", "Neutral", "Positive"};
    const auto texts = make_texts(design, claimed, truth);
    load_texts(stata, texts);
    const int first_passage = static_cast<int>(texts.size()) - 3;  // 1-based obs of passage 1
    // Leave the third passage out with the if condition.
    stata.if_mask.assign(static_cast<std::size_t>(stata.nobs), true);
    stata.if_mask[static_cast<std::size_t>(first_passage + 2 - 1)] = false;

    TestCall call;
    const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
    INFO(stata.errors);
    REQUIRE(r.rc == 0);
    REQUIRE(r.store_rc == 0);
    REQUIRE(stata.unexpected.empty());
    REQUIRE(r.scalars.at("N") == 3);
    REQUIRE(r.scalars.at("N_valid") + r.scalars.at("N_invalid") + r.scalars.at("N_inconclusive") ==
            3);
    REQUIRE(r.scalars.count("tau") == 0);  // single-passage results only for one passage
    const Matrix& table = r.matrices.at("results");
    REQUIRE(table.rows == 3);
    REQUIRE(table.cols == 11);
    REQUIRE(stata.output.find("...") != std::string::npos);  // progress dots

    int row = 0;
    for (int k = 0; k < 4; ++k) {
        const int obs = first_passage + k;
        const auto& tau = stata.var("v_tau").numbers[static_cast<std::size_t>(obs - 1)];
        if (k == 2) {
            REQUIRE(tau == missing());  // outside the sample: untouched
            REQUIRE(stata.var("v_verdict").numbers[static_cast<std::size_t>(obs - 1)] == missing());
            continue;
        }
        ++row;
        REQUIRE(table.at(row, 1) == obs);
        const auto cli = nlohmann::json::parse(run_cli_test(cli_input_json(
            texts, static_cast<std::size_t>(obs - 1), design.labels, 42, 0.05, 199, true)));
        require_same(cli["validation"]["statistic"], tau);
        require_same(cli["validation"]["statistic"], table.at(row, 2));
        require_same(cli["validation"]["critical_value"], table.at(row, 3));
        require_same(cli["validation"]["p_value"], table.at(row, 4));
        require_same(cli["validation"]["p_value"],
                     stata.var("v_p").numbers[static_cast<std::size_t>(obs - 1)]);
        const std::string verdict = cli["verdict"].get<std::string>();
        const double code = verdict == "valid" ? 1 : verdict == "invalid" ? 2 : 3;
        REQUIRE(table.at(row, 11) == code);
        REQUIRE(stata.var("v_verdict").numbers[static_cast<std::size_t>(obs - 1)] == code);
    }
    // Pool observations never receive results.
    for (int obs = 1; obs < first_passage; ++obs)
        REQUIRE(stata.var("v_tau").numbers[static_cast<std::size_t>(obs - 1)] == missing());
}

TEST_CASE("if and in select the pools: excluded rows change nothing", "[test][sample]") {
    Design design;
    const auto texts = make_texts(design, {"Neutral"}, {"Neutral"});
    RunResult reference;
    {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        TestCall call;
        call.generate = false;
        reference = run_like_ado(stata, call.varlist(), call.words(), "v_");
        REQUIRE(reference.rc == 0);
    }
    // The same data with junk around it: rows before the in range, rows failing the if
    // condition (with missing embeddings, which would be an error if they were read).
    auto noisy = texts;
    Text junk = texts.front();
    junk.label = "Positive";
    noisy.insert(noisy.begin(), 3, junk);
    Text bad = texts.front();
    bad.embedding[0] = missing();
    noisy.insert(noisy.begin() + 10, bad);
    Stata stata;
    load_plugin(stata);
    load_texts(stata, noisy);
    stata.in_first = 4;
    stata.if_mask.assign(static_cast<std::size_t>(stata.nobs), true);
    stata.if_mask[10] = false;  // obs 11: the row with a missing embedding
    TestCall call;
    call.generate = false;
    const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
    INFO(stata.errors);
    REQUIRE(r.rc == 0);
    REQUIRE(same_bits(r.scalars.at("tau"), reference.scalars.at("tau")));
    REQUIRE(same_bits(r.scalars.at("p"), reference.scalars.at("p")));
    REQUIRE(same_bits(r.scalars.at("sep_p"), reference.scalars.at("sep_p")));
    REQUIRE(r.macros.at("verdict") == reference.macros.at("verdict"));

    // The excluded row really is excluded: put it in the sample and the call fails on it.
    stata.if_mask[10] = true;
    stata.errors.clear();
    const RunResult failing = run_like_ado(stata, call.varlist(), call.words(), "w_");
    REQUIRE(failing.rc == 459);
    REQUIRE(stata.errors.find("e1 is missing in observation 11") != std::string::npos);
}

TEST_CASE("labels stored as strL are read in full", "[test][strl]") {
    Design design;
    design.labels = {std::string(3000, 'p') + " positive", "Neutral", "Negative"};
    const auto texts = make_texts(design, {design.labels[0]}, {design.labels[0]});
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts, /*strl_labels=*/true);
    TestCall call;
    const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
    INFO(stata.errors);
    REQUIRE(r.rc == 0);
    REQUIRE(r.macros.at("label") == design.labels[0]);
    REQUIRE(r.scalars.at("K") == 3);
    REQUIRE(stata.unexpected.empty());
}

TEST_CASE("the label set and labels with spaces come through a local", "[test]") {
    Design design;
    design.labels = {"Very positive", "Neutral", "Very negative"};
    const auto texts = make_texts(design, {"very  POSITIVE"}, {"Very positive"});
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts);
    stata.set_local("llmv_labels", "`\"Very negative\"' \"Neutral\" `\"Very positive\"'");
    TestCall call;
    const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
    INFO(stata.errors);
    REQUIRE(r.rc == 0);
    // Matched case- and space-insensitively, reported in the spelling of labels().
    REQUIRE(r.macros.at("label") == "Very positive");
    REQUIRE(split_list(r.macros.at("labels")) ==
            std::vector<std::string>{"Very negative", "Neutral", "Very positive"});
    // Separation rows follow S's order.
    REQUIRE(r.matrix_rownames.at("separation") ==
            std::vector<std::string>{"Very negative", "Neutral"});

    stata.set_local("llmv_labels", "Positive Negative");
    stata.errors.clear();
    const RunResult bad = run_like_ado(stata, call.varlist(), call.words(), "w_");
    REQUIRE(bad.rc == 459);
    REQUIRE(stata.errors.find("is not in labels()") != std::string::npos);
}

TEST_CASE("missing and empty inputs give a clear error and leave the data alone",
          "[test][errors]") {
    Design design;
    const auto texts = make_texts(design, {"Positive"}, {"Positive"});
    TestCall call;

    SECTION("a missing embedding value, system or extended") {
        for (double value : {missing(), extended_missing('a'), extended_missing('z')}) {
            Stata stata;
            load_plugin(stata);
            load_texts(stata, texts);
            stata.var("e3").numbers[4] = value;
            const auto before = snapshot(stata);
            const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
            REQUIRE(r.rc == 459);
            REQUIRE(stata.errors.find("e3 is missing in observation 5") != std::string::npos);
            REQUIRE(stata.data == before);
        }
    }
    SECTION("an empty label") {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        stata.var("label").strings[2] = "   ";
        const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
        REQUIRE(r.rc == 459);
        REQUIRE(stata.errors.find("label is empty in observation 3") != std::string::npos);
    }
    SECTION("an empty backtranslation answer") {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        stata.var("bt").strings[0] = "";
        const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
        REQUIRE(r.rc == 459);
        REQUIRE(stata.errors.find("bt is empty in observation 1") != std::string::npos);
    }
    SECTION("a missing passage indicator") {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        stata.var("passage").numbers[0] = missing();
        const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
        REQUIRE(r.rc == 459);
        REQUIRE(stata.errors.find("passage is missing in observation 1") != std::string::npos);
    }
    SECTION("no observations in the sample") {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        stata.if_mask.assign(static_cast<std::size_t>(stata.nobs), false);
        const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
        REQUIRE(r.rc == 2000);
        REQUIRE(stata.errors.find("no observations") != std::string::npos);
    }
    SECTION("no passage in the sample") {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        stata.in_last = stata.nobs - 1;
        const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
        REQUIRE(r.rc == 459);
        REQUIRE(stata.errors.find("is 0 in every observation") != std::string::npos);
    }
    SECTION("a pool of one text") {
        Stata stata;
        load_plugin(stata);
        auto few = texts;
        few.erase(few.begin() + 1, few.begin() + design.m);  // Positive keeps one pool text
        load_texts(stata, few);
        const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
        REQUIRE(r.rc == 459);
        INFO(stata.errors);
        REQUIRE(stata.errors.find("the pool of label Positive (passage 0) must have at least 2 "
                                  "texts; the sample has 1 text (observation 1)") !=
                std::string::npos);
        REQUIRE(stata.errors.find("pools.") == std::string::npos);
    }
    SECTION("a zero embedding of the passage") {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        for (const auto& name : embedding_names(design.dim))
            stata.var(name).numbers[static_cast<std::size_t>(stata.nobs - 1)] = 0.0;
        const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
        REQUIRE(r.rc == 459);
        INFO(stata.errors);
        REQUIRE(stata.errors.find("observation 61 (the passage): embedding e1-e6 received a zero "
                                  "vector; allowed: ") != std::string::npos);
        REQUIRE(stata.errors.find("a zero vector") != std::string::npos);
    }
    // Issue 10: a zero embedding in observation 25 (the 5th pool text of Neutral) was reported
    // as "passage in observation 61: `pools.Neutral` ... row 5".
    SECTION("a zero embedding of a pool text names its observation, not the engine's row") {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        for (const auto& name : embedding_names(design.dim)) stata.var(name).numbers[24] = 0.0;
        const auto before = snapshot(stata);
        const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
        REQUIRE(r.rc == 459);
        INFO(stata.errors);
        REQUIRE(stata.errors.find("observation 25 (a pool text of label Neutral): embedding e1-e6 "
                                  "received a zero vector; allowed: ") != std::string::npos);
        REQUIRE(stata.errors.find("testing the passage in observation 61 (label Positive)") !=
                std::string::npos);
        REQUIRE(stata.errors.find("pools.") == std::string::npos);
        REQUIRE(stata.errors.find("row 5") == std::string::npos);
        REQUIRE(stata.data == before);
    }
    SECTION("options out of range name the option and the value") {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        TestCall bad = call;
        bad.alpha = "1.5";
        RunResult r = run_like_ado(stata, bad.varlist(), bad.words(), "v_");
        REQUIRE(r.rc == 198);
        INFO(stata.errors);
        // The Stata option, alpha(), not the engine's `alpha` (issue 10), and the table's range.
        REQUIRE(stata.errors.find("alpha()") != std::string::npos);
        REQUIRE(stata.errors.find("`alpha`") == std::string::npos);
        REQUIRE(stata.errors.find("1.5") != std::string::npos);
        REQUIRE(stata.errors.find("[1e-06, 0.5]") != std::string::npos);
        stata.errors.clear();
        bad = call;
        bad.alpha = "0.6";  // inside (0, 1) but outside the table's [1e-06, 0.5], as for validate
        r = run_like_ado(stata, bad.varlist(), bad.words(), "v_");
        REQUIRE(r.rc == 198);
        REQUIRE(stata.errors.find("alpha()") != std::string::npos);
        stata.errors.clear();
        bad = call;
        bad.permutations = 2000000;  // the table's cap, as for validate
        r = run_like_ado(stata, bad.varlist(), bad.words(), "v_");
        REQUIRE(r.rc == 198);
        REQUIRE(stata.errors.find("permutations()") != std::string::npos);
        REQUIRE(stata.errors.find("2000000") != std::string::npos);
        stata.errors.clear();
        bad = call;
        bad.seed = "-3";
        r = run_like_ado(stata, bad.varlist(), bad.words(), "v_");
        REQUIRE(r.rc == 198);
        REQUIRE(stata.errors.find("seed") != std::string::npos);
        stata.errors.clear();
        bad = call;
        bad.extra = {"vmethod=bootstrap"};
        r = run_like_ado(stata, bad.varlist(), bad.words(), "v_");
        REQUIRE(r.rc == 198);
        REQUIRE(stata.errors.find("bootstrap") != std::string::npos);
    }
}

TEST_CASE("a store failing at the n-th call leaves the dataset unchanged", "[test][store]") {
    Design design;
    const auto texts = make_texts(design, {"Positive", "Neutral", "Negative"},
                                  {"Positive", "Neutral", "Positive"});
    TestCall call;
    // 3 passages x 6 generated variables = 18 data stores; fail each one in turn.
    for (int n = 1; n <= 18; ++n) {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        const auto before = snapshot(stata);
        stata.fail_store_at = n;
        const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
        INFO("failing store " << n);
        REQUIRE(r.rc == 0);
        REQUIRE(r.store_rc == 909);
        REQUIRE_FALSE(stata.errors.empty());
        REQUIRE(stata.data == before);
        REQUIRE(stata.unexpected.empty());
    }
    // And the plugin's own rollback, seen directly: the temporary variables are put back.
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts);
    stata.set_varlist(call.varlist());
    REQUIRE(stata.call(call.words()) == 0);
    std::vector<std::string> temporaries;
    int index = 0;
    for (const auto& suffix : split_list(stata.local("llmv_vars"))) {
        temporaries.push_back("__T_" + suffix);
        stata.add_new(temporaries.back(),
                      stata.local("llmv_v" + std::to_string(++index) + "_type"));
    }
    stata.create_matrix("__M", 3, 11);
    const auto before = snapshot(stata);
    stata.fail_store_at = 17;
    stata.set_varlist(temporaries);
    REQUIRE(stata.call({"store", "token=" + stata.local("llmv_token"), "scalars=__R",
                        "mat_results=__M"}) == 909);
    REQUIRE(stata.data == before);
    // The results were used once: a second store is refused.
    REQUIRE(stata.call({"store", "token=" + stata.local("llmv_token"), "scalars=__R",
                        "mat_results=__M"}) == 198);
}

TEST_CASE("store refuses matrices of the wrong size before writing anything", "[test][store]") {
    Design design;
    const auto texts = make_texts(design, {"Positive"}, {"Positive"});
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts);
    TestCall call;
    call.generate = false;
    stata.set_varlist(call.varlist());
    REQUIRE(stata.call(call.words()) == 0);
    std::vector<std::string> words = {"store", "token=" + stata.local("llmv_token"), "scalars=__R"};
    for (const auto& key : split_list(stata.local("llmv_matrices"))) {
        stata.create_matrix("__M_" + key, 1, 1);
        words.push_back("mat_" + key + "=__M_" + key);
    }
    stata.set_varlist({});
    REQUIRE(stata.call(words) == 198);
    REQUIRE(stata.errors.find("must be") != std::string::npos);
    REQUIRE(stata.scalars.empty());
}

TEST_CASE("Break stops a run between passages, nothing is stored, a re-run completes",
          "[test][break]") {
    Design design;
    std::vector<std::string> claimed(12, "Positive"), truth(12, "Positive");
    const auto texts = make_texts(design, claimed, truth);
    TestCall call;
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts);
    const auto before = snapshot(stata);
    stata.break_after_polls = 5;
    const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
    REQUIRE(r.rc == 1);
    REQUIRE(stata.errors.find("Break") != std::string::npos);
    REQUIRE(stata.data == before);
    REQUIRE(stata.polls == 5);
    // Nothing is waiting to be stored after a Break.
    REQUIRE(stata.call({"store", "token=1", "scalars=__R"}) == 198);

    stata.break_after_polls = -1;
    stata.stop_flag = 0;
    stata.errors.clear();
    const RunResult again = run_like_ado(stata, call.varlist(), call.words(), "v_");
    INFO(stata.errors);
    REQUIRE(again.rc == 0);
    REQUIRE(again.store_rc == 0);
    REQUIRE(again.scalars.at("N") == 12);
}

TEST_CASE("the seed reaches the permutations and the same seed gives the same numbers", "[test]") {
    Design design;
    design.spread = 3.0;  // labels hard to tell apart: permutation p-values vary with the seed
    const auto texts = make_texts(design, {"Positive"}, {"Positive"});
    auto run = [&](const std::string& seed) {
        Stata stata;
        load_plugin(stata);
        load_texts(stata, texts);
        TestCall call;
        call.generate = false;
        call.seed = seed;
        const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
        REQUIRE(r.rc == 0);
        return r.matrices.at("separation");
    };
    const Matrix a = run("1"), b = run("1"), c = run("18446744073709551615");
    REQUIRE(a.values == b.values);
    bool any_difference = false;
    for (int i = 1; i <= a.rows; ++i) any_difference |= a.at(i, 3) != c.at(i, 3);
    REQUIRE(any_difference);
}

TEST_CASE("without backtranslation answers the verdict cannot be valid", "[test]") {
    Design design;
    const auto texts = make_texts(design, {"Positive"}, {"Positive"});
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts, false, /*with_backtranslation=*/false);
    TestCall call;
    call.backtranslation = false;
    const RunResult r = run_like_ado(stata, call.varlist(), call.words(), "v_");
    INFO(stata.errors);
    REQUIRE(r.rc == 0);
    REQUIRE(r.scalars.at("accuracy") == missing());
    REQUIRE(r.matrices.count("counts") == 0);
    const auto cli = nlohmann::json::parse(
        run_cli_test(cli_input_json(texts, texts.size() - 1, design.labels, 42, 0.05, 199, false)));
    REQUIRE(r.macros.at("verdict") == cli["verdict"].get<std::string>());
    require_same(cli["validation"]["p_value"], r.scalars.at("p"));
}

TEST_CASE("validate is dispatched", "[validate]") {
    Stata stata;
    load_plugin(stata);
    stata.add_string("text", {"A fine day."}, true);
    stata.select_all();
    stata.set_varlist({"text"});
    // Without a task the configuration is refused before any call.
    REQUIRE(stata.call({"validate", "text=1"}) == 198);
    REQUIRE(stata.errors.find("task") != std::string::npos);
}
