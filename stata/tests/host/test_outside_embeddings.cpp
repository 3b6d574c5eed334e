// `llmvalidate test` with the embeddings in a Stata matrix (embmatrix()) or a CSV file
// (embfile()) instead of variables (issue 15: 3,072 dimensions exceed Stata/BE's variables):
// the same numbers, bit for bit, as with the embeddings as variables.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "fake_stata.hpp"
#include "fixtures.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

std::vector<std::string> words(bool as_variables, int dim) {
    return {"test",
            "label=1",
            "passage=2",
            "bt=3",
            "ref=0",
            "embed=" + std::string(as_variables ? "4" : "0"),
            "dim=" + std::to_string(as_variables ? dim : 0),
            "generate=1",
            "alpha=0.05",
            "seed=42",
            "permutations=199"};
}

// Shortest round-trip text of a double.
std::string exact(double value) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    return buffer;
}

}  // namespace

TEST_CASE("test: embeddings from embmatrix() or embfile() give the numbers of the variables",
          "[test][embeddings]") {
    Design design;
    design.dim = 8;
    const auto texts = make_texts(design, {"Positive", "Negative", "Neutral"},
                                  {"Positive", "Positive", "Neutral"});
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts);
    const int n = stata.nobs;
    // An observation outside the sample (if) is read but not used.
    stata.if_mask = std::vector<bool>(static_cast<std::size_t>(n), true);
    stata.if_mask[3] = false;

    std::vector<std::string> varlist = {"label", "passage", "bt"};
    for (const auto& e : embedding_names(design.dim)) varlist.push_back(e);
    const RunResult reference = run_like_ado(stata, varlist, words(true, design.dim), "v_");
    INFO(stata.errors);
    REQUIRE(reference.rc == 0);
    REQUIRE(reference.store_rc == 0);

    // The matrix: row i is observation i.
    stata.create_matrix("E", n, design.dim);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < design.dim; ++k)
            stata.matrices["E"].values[static_cast<std::size_t>(i * design.dim + k)] =
                texts[static_cast<std::size_t>(i)].embedding[static_cast<std::size_t>(k)];
    stata.set_local("llmv_embmatrix", "E");
    const RunResult from_matrix =
        run_like_ado(stata, {"label", "passage", "bt"}, words(false, 0), "m_");
    REQUIRE(from_matrix.rc == 0);

    // The file: a header, then a line per observation.
    const std::string path = temporary_path(".csv");
    {
        std::ofstream file(path);
        for (int k = 0; k < design.dim; ++k) file << (k ? "," : "") << "e" << k + 1;
        file << "\r\n";
        for (const auto& text : texts) {
            for (std::size_t k = 0; k < text.embedding.size(); ++k)
                file << (k ? ", " : "") << exact(text.embedding[k]);
            file << "\n";
        }
    }
    stata.set_local("llmv_embmatrix", "");
    stata.set_local("llmv_embfile", path);
    const RunResult from_file =
        run_like_ado(stata, {"label", "passage", "bt"}, words(false, 0), "f_");
    INFO(stata.errors);
    REQUIRE(from_file.rc == 0);

    for (const std::string suffix : {"tau", "crit", "p", "bt_acc", "sep_p", "verdict"})
        for (int obs = 0; obs < n; ++obs) {
            INFO(suffix << " of observation " << obs + 1);
            const double expected = stata.var("v_" + suffix).numbers[static_cast<std::size_t>(obs)];
            CHECK(same_bits(expected,
                            stata.var("m_" + suffix).numbers[static_cast<std::size_t>(obs)]));
            CHECK(same_bits(expected,
                            stata.var("f_" + suffix).numbers[static_cast<std::size_t>(obs)]));
        }
    CHECK(stata.var("v_tau").numbers[static_cast<std::size_t>(n - 1)] < missing());

    // Issue 41: a UTF-8 byte order mark before a quoted header, and before a first line of
    // numbers (no header), reads the same numbers.
    for (const bool header : {true, false}) {
        INFO("BOM, header " << header);
        {
            std::ofstream file(path, std::ios::binary | std::ios::trunc);
            file << "\xEF\xBB\xBF";
            if (header) {
                for (int k = 0; k < design.dim; ++k) file << (k ? "," : "") << "\"e" << k + 1 << "\"";
                file << "\r\n";
            }
            for (const auto& text : texts) {
                for (std::size_t k = 0; k < text.embedding.size(); ++k)
                    file << (k ? "," : "") << exact(text.embedding[k]);
                file << "\r\n";
            }
        }
        const std::string prefix = header ? "bh_" : "bn_";
        const RunResult with_bom =
            run_like_ado(stata, {"label", "passage", "bt"}, words(false, 0), prefix);
        INFO(stata.errors);
        REQUIRE(with_bom.rc == 0);
        for (int obs = 0; obs < n; ++obs)
            CHECK(same_bits(stata.var("v_tau").numbers[static_cast<std::size_t>(obs)],
                            stata.var(prefix + "tau").numbers[static_cast<std::size_t>(obs)]));
    }
    std::remove(path.c_str());
}

TEST_CASE("test: embmatrix() and embfile() errors name the option, the value and what is allowed",
          "[test][embeddings][errors]") {
    Design design;
    design.dim = 3;
    const auto texts = make_texts(design, {"Positive"}, {"Positive"});
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts);
    const int n = stata.nobs;
    const std::vector<std::string> base = {"label", "passage", "bt"};
    const auto run = [&](const std::vector<std::string>& varlist, bool as_variables) {
        stata.errors.clear();
        return run_like_ado(stata, varlist, words(as_variables, design.dim), "v_").rc;
    };
    const std::string path = temporary_path(".csv");
    const auto write = [&](const std::string& text) {
        std::ofstream file(path);
        file << text;
    };

    SECTION("no embeddings at all, or two sources") {
        CHECK(run(base, false) == 198);
        CHECK(stata.errors.find("give the embeddings one way: as variables (the varlist), with "
                                "embmatrix() or with embfile(); received none") !=
              std::string::npos);
        stata.set_local("llmv_embmatrix", "E");
        std::vector<std::string> with_variables = base;
        for (const auto& e : embedding_names(design.dim)) with_variables.push_back(e);
        CHECK(run(with_variables, true) == 198);
        CHECK(stata.errors.find("received variables and embmatrix()") != std::string::npos);
    }
    SECTION("a matrix that does not exist, or of the wrong size") {
        stata.set_local("llmv_embmatrix", "nosuch");
        CHECK(run(base, false) == 111);
        CHECK(stata.errors.find("embmatrix(): there is no matrix nosuch") != std::string::npos);
        stata.create_matrix("E", n - 1, 3);
        stata.set_local("llmv_embmatrix", "E");
        CHECK(run(base, false) == 459);
        CHECK(stata.errors.find("embmatrix(): matrix E has " + std::to_string(n - 1) +
                                " rows; it must have one row per observation of the data (" +
                                std::to_string(n) + ")") != std::string::npos);
        stata.create_matrix("F", n, 3);
        for (double& value : stata.matrices["F"].values) value = 1;
        stata.matrices["F"].values[4] = missing();
        stata.set_local("llmv_embmatrix", "F");
        CHECK(run(base, false) == 459);
        CHECK(stata.errors.find(
                  "embmatrix(): matrix F is missing in row 2 (observation 2), column 2") !=
              std::string::npos);
    }
    SECTION("a file that is missing, short, ragged or not numbers") {
        stata.set_local("llmv_embfile", "/nonexistent/emb.csv");
        CHECK(run(base, false) == 601);
        CHECK(stata.errors.find("embfile(): file /nonexistent/emb.csv not found") !=
              std::string::npos);
        stata.set_local("llmv_embfile", path);
        write("1,2,3\n");
        CHECK(run(base, false) == 459);
        CHECK(stata.errors.find(
                  "has 1 lines of numbers; it must have one per observation of the data (" +
                  std::to_string(n) + ")") != std::string::npos);
        write("1,2,3\n1,2\n");
        CHECK(run(base, false) == 459);
        CHECK(stata.errors.find("line 2 of " + path +
                                " has 2 numbers; the lines before it have 3") != std::string::npos);
        write("e1,e2,e3\n1,2,3\n1,NA,3\n");
        CHECK(run(base, false) == 459);
        CHECK(stata.errors.find("line 3 of " + path + ", column 2 is `NA'; allowed: a number") !=
              std::string::npos);
    }
    CHECK(stata.find("v_tau") == -1);
    std::remove(path.c_str());
}

TEST_CASE("test: embfile() skips the lines of observations outside the sample, whatever they hold",
          "[test][embeddings]") {
    Design design;
    design.dim = 4;
    const auto texts = make_texts(design, {"Positive", "Negative"}, {"Positive", "Negative"});
    Stata stata;
    load_plugin(stata);
    load_texts(stata, texts);
    const int n = stata.nobs;
    std::vector<std::string> varlist = {"label", "passage", "bt"};
    for (const auto& e : embedding_names(design.dim)) varlist.push_back(e);
    const std::string path = temporary_path(".csv");
    // Observation 1 (first line, so no header can be mistaken for it) and observation 4 are
    // left out by if; their lines hold what export delimited writes for missing values.
    for (const std::string excluded : {".,.,.,.", ",,,", ".a,,.,"}) {
        for (const bool header : {true, false}) {
            INFO("excluded lines `" << excluded << "', header " << header);
            stata.if_mask = std::vector<bool>(static_cast<std::size_t>(n), true);
            stata.if_mask[0] = false;
            stata.if_mask[3] = false;
            stata.set_local("llmv_embfile", "");
            stata.errors.clear();
            const RunResult reference = run_like_ado(stata, varlist, words(true, design.dim), "v_");
            INFO(stata.errors);
            REQUIRE(reference.rc == 0);
            {
                std::ofstream file(path);
                if (header) file << "e1,e2,e3,e4\n";
                for (int obs = 1; obs <= n; ++obs) {
                    if (obs == 1 || obs == 4) {
                        file << excluded << "\n";
                        continue;
                    }
                    const auto& embedding = texts[static_cast<std::size_t>(obs - 1)].embedding;
                    for (std::size_t k = 0; k < embedding.size(); ++k)
                        file << (k ? "," : "") << exact(embedding[k]);
                    file << "\n";
                }
            }
            stata.set_local("llmv_embfile", path);
            const RunResult from_file =
                run_like_ado(stata, {"label", "passage", "bt"}, words(false, 0), "f_");
            INFO(stata.errors);
            REQUIRE(from_file.rc == 0);
            for (int obs = 2; obs <= n; ++obs) {
                if (obs == 4) continue;
                const auto at = static_cast<std::size_t>(obs - 1);
                CHECK(same_bits(stata.var("v_tau").numbers[at], stata.var("f_tau").numbers[at]));
                CHECK(same_bits(stata.var("v_p").numbers[at], stata.var("f_p").numbers[at]));
            }
            // Inside the sample, the same line is still refused.
            stata.if_mask[3] = true;
            stata.errors.clear();
            CHECK(run_like_ado(stata, {"label", "passage", "bt"}, words(false, 0), "g_").rc == 459);
            CHECK(stata.errors.find("line " + std::to_string(header ? 5 : 4) + " of " + path) !=
                  std::string::npos);
            for (const std::string prefix : {"v_", "f_", "g_"})
                for (const std::string suffix :
                     {"label", "verdict", "tau", "crit", "p", "bt_acc", "sep_p"})
                    stata.drop(prefix + suffix);
        }
    }
    std::remove(path.c_str());
}
