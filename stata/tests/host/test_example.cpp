// stata/llmv_example.do (the help file's example) as far as the host can run it: the same
// data, built the same way, through the same plugin calls; the values the do-file asserts
// are read from the do-file and must be what the plugin returns, to the bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "fake_stata.hpp"

using namespace host;

namespace {

// The do-file's data step, line by line.
void build_example_data(Stata& stata) {
    stata.clear();
    const int n = 64;
    std::vector<std::string> label(n), truth(n), back(n);
    std::vector<double> passage(n), id(n);
    for (int i = 1; i <= n; ++i) {
        const std::size_t k = static_cast<std::size_t>(i - 1);
        id[k] = i;
        label[k] = i <= 20 ? "Positive" : i <= 40 ? "Neutral" : "Negative";
        passage[k] = i > 60;
        truth[k] = label[k];
    }
    label[60] = truth[60] = "Positive";
    label[61] = "Negative";
    truth[61] = "Positive";
    label[62] = truth[62] = "Neutral";
    label[63] = truth[63] = "Positive";
    for (int i = 1; i <= n; ++i) {
        const std::size_t k = static_cast<std::size_t>(i - 1);
        back[k] = passage[k] != 0 ? "" : label[k];
        if (i == 5 || i == 25) back[k] = "Negative";
    }
    stata.add_numeric("id", id);
    stata.add_string("label", label, false);
    stata.add_numeric("passage", passage);
    stata.add_string("llm_back", back, false);
    for (int d = 1; d <= 6; ++d) {
        std::vector<double> e(n);
        for (int i = 1; i <= n; ++i) {
            const std::size_t k = static_cast<std::size_t>(i - 1);
            e[k] = static_cast<double>((i * d * 37 + 11 * d) % 101) / 101;
            if ((d == 1 && truth[k] == "Positive") || (d == 2 && truth[k] == "Neutral") ||
                (d == 3 && truth[k] == "Negative"))
                e[k] = e[k] + 2;
        }
        stata.add_numeric("e" + std::to_string(d), e);
    }
    stata.select_all();
}

std::string read_do_file() {
    std::ifstream in(std::string(LLMV_SOURCE_DIR) + "/stata/llmv_example.do");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// `assert reldif(r(NAME), VALUE) < 1e-15` lines between two markers of the do-file.
std::vector<std::pair<std::string, double>> asserted(const std::string& text,
                                                     const std::string& from,
                                                     const std::string& to) {
    const auto begin = text.find(from);
    const auto end = text.find(to, begin);
    const std::string block = text.substr(begin, end - begin);
    std::vector<std::pair<std::string, double>> values;
    const std::regex pattern(R"(assert reldif\(r\((\w+)\), ([0-9.eE+-]+)\) < 1e-15)");
    for (std::sregex_iterator it(block.begin(), block.end(), pattern), last; it != last; ++it)
        values.emplace_back((*it)[1].str(), std::strtod((*it)[2].str().c_str(), nullptr));
    return values;
}

std::vector<std::string> test_words(bool generate) {
    return {"test",       "label=1",
            "passage=2",  "bt=3",
            "ref=0",      "embed=4",
            "dim=6",      std::string("generate=") + (generate ? "1" : "0"),
            "alpha=0.05", "threshold=0.90000000000000002",
            "seed=12345", "permutations=999"};
}

const std::vector<std::string> kVarlist = {"label", "passage", "llm_back", "e1", "e2",
                                           "e3",    "e4",      "e5",       "e6"};

}  // namespace

TEST_CASE("example.do: one passage returns exactly what the do-file asserts", "[example]") {
    const std::string text = read_do_file();
    const auto expected = asserted(text, "--- One passage", "--- Every passage");
    REQUIRE(expected.size() >= 6);

    Stata stata;
    stata.load(LLMV_PLUGIN_PATH);
    build_example_data(stata);
    stata.if_mask.assign(static_cast<std::size_t>(stata.nobs), false);
    for (int i = 0; i < 61; ++i) stata.if_mask[static_cast<std::size_t>(i)] = true;  // id <= 61
    stata.set_local("llmv_labels", "Positive Neutral Negative");
    const RunResult r = run_like_ado(stata, kVarlist, test_words(false), "v_");
    INFO(stata.errors);
    REQUIRE(r.rc == 0);
    REQUIRE(r.store_rc == 0);
    REQUIRE(r.macros.at("verdict") == "valid");
    REQUIRE(r.macros.at("label") == "Positive");
    for (const auto& entry : expected) {
        INFO("r(" << entry.first << ")");
        REQUIRE(r.scalars.at(entry.first) == entry.second);
    }
}

TEST_CASE("example.do: every passage at once, with new variables", "[example]") {
    const std::string text = read_do_file();
    const auto expected = asserted(text, "--- Every passage", "--- set seed");
    Stata stata;
    stata.load(LLMV_PLUGIN_PATH);
    build_example_data(stata);
    stata.set_local("llmv_labels", "Positive Neutral Negative");
    const RunResult r = run_like_ado(stata, kVarlist, test_words(true), "v_");
    INFO(stata.errors);
    REQUIRE(r.rc == 0);
    REQUIRE(r.scalars.at("N") == 4);
    REQUIRE(r.scalars.at("N_valid") == 3);
    REQUIRE(r.scalars.at("N_invalid") == 1);
    REQUIRE(r.scalars.at("N_inconclusive") == 0);
    for (const auto& entry : expected) REQUIRE(r.scalars.at(entry.first) == entry.second);
    REQUIRE(stata.var("v_verdict").numbers[61] == 2);  // id 62
    const std::regex p_line(R"(assert reldif\(v_p, ([0-9.eE+-]+)\) < 1e-15 if id == 62)");
    std::smatch match;
    REQUIRE(std::regex_search(text, match, p_line));
    REQUIRE(stata.var("v_p").numbers[61] == std::strtod(match[1].str().c_str(), nullptr));
    for (int i = 0; i < 60; ++i)
        REQUIRE(stata.var("v_tau").numbers[static_cast<std::size_t>(i)] == missing());
}

TEST_CASE("the help's llmvalidate test examples are commands llmv_example.do runs",
          "[example][help]") {
    std::ifstream help_file(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.sthlp");
    std::stringstream help;
    help << help_file.rdbuf();
    // The do-file's commands, continuation lines (///) joined.
    const std::string joined = std::regex_replace(
        std::regex_replace(read_do_file(), std::regex(R"([ \t]*///[ \t]*\r?\n[ \t]*)"), " "),
        std::regex(R"(\n[ \t]+)"), "\n");
    const std::string text = help.str();
    const std::regex command(R"(\{cmd:(llmvalidate test [^}]*)\}\{p_end\})");
    int found = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), command);
         it != std::sregex_iterator(); ++it) {
        INFO((*it)[1].str());
        CHECK(joined.find("\n" + (*it)[1].str() + "\n") != std::string::npos);
        ++found;
    }
    CHECK(found == 3);
    // The other commands the help runs on the do-file's data (regress, estimates store, the
    // replay, estadd, esttab) are lines of the do-file too, so that `do llmv_example.do`
    // runs them.
    const std::regex beside(
        R"(\{phang2\}\{cmd:((?:regress|estimates store|estadd|esttab)[^}]*|llmvalidate)\}\{p_end\})");
    int besides = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), beside);
         it != std::sregex_iterator(); ++it) {
        INFO((*it)[1].str());
        CHECK(joined.find("\n" + (*it)[1].str() + "\n") != std::string::npos);
        ++besides;
    }
    CHECK(besides == 6);
    // The do-file is in the package (net get copies it).
    std::ifstream pkg(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.pkg");
    std::stringstream lines;
    lines << pkg.rdbuf();
    CHECK(lines.str().find("\nf llmv_example.do\n") != std::string::npos);
}
