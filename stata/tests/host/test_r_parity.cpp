// R <-> Stata parity, the plugin's half: the cases stata/tests/r_parity.R wrote (inputs and the
// R package's results, every double in hexadecimal) are loaded into the fake Stata, the
// plugin's `test` subcommand runs on them, and every number must equal R's bit for bit.
// Hidden tag: run by tools/test.d/stata-r-parity.sh, which sets LLMV_R_PARITY_FILE.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "fake_stata.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

double from_hex(const nlohmann::json& value) {
    const std::string text = value.get<std::string>();
    char* end = nullptr;
    const double number = std::strtod(text.c_str(), &end);
    REQUIRE(*end == '\0');
    return number;
}

// R's value (a non-finite one is Stata's missing in the plugin's results).
void require_same(const std::string& what, double r_value, double plugin_value) {
    INFO(what << ": R " << r_value << " vs plugin " << plugin_value);
    if (!std::isfinite(r_value))
        REQUIRE(plugin_value >= missing());
    else
        REQUIRE(same_bits(r_value, plugin_value));
}

}  // namespace

TEST_CASE("R parity: the plugin's numbers equal the R package's bit for bit", "[.r-parity]") {
    const char* file = std::getenv("LLMV_R_PARITY_FILE");
    INFO("LLMV_R_PARITY_FILE names the output of stata/tests/r_parity.R");
    REQUIRE(file != nullptr);
    std::ifstream in(file);
    REQUIRE(in.good());
    const auto fixture = nlohmann::json::parse(in);
    const auto& cases = fixture.at("cases");
    REQUIRE(cases.size() == 3);

    for (const auto& test : cases) {
        const std::string name = test.at("name").get<std::string>();
        INFO("case " << name);
        const auto& rows = test.at("rows");
        const std::size_t dim = rows.at(0).at("embedding").size();
        std::vector<std::string> labels, answers;
        std::vector<double> passage;
        std::vector<std::vector<double>> embedding(dim);
        for (const auto& row : rows) {
            labels.push_back(row.at("label").get<std::string>());
            answers.push_back(row.at("bt").get<std::string>());
            passage.push_back(row.at("passage").get<double>());
            REQUIRE(row.at("embedding").size() == dim);
            for (std::size_t k = 0; k < dim; ++k)
                embedding[k].push_back(from_hex(row.at("embedding")[k]));
        }

        Stata stata;
        stata.load(LLMV_PLUGIN_PATH);
        REQUIRE(stata.pginit_result == 3);
        stata.add_string("label", labels, /*strl=*/false);
        stata.add_numeric("passage", passage);
        stata.add_string("bt", answers, /*strl=*/false);
        std::vector<std::string> varlist = {"label", "passage", "bt"};
        for (std::size_t k = 0; k < dim; ++k) {
            varlist.push_back("e" + std::to_string(k + 1));
            stata.add_numeric(varlist.back(), embedding[k]);
        }
        stata.select_all();
        const std::vector<std::string> words = {
            "test",
            "label=1",
            "passage=2",
            "bt=3",
            "ref=0",
            "embed=4",
            "dim=" + std::to_string(dim),
            "generate=0",
            "alpha=0.05",
            "threshold=" + test.at("threshold").get<std::string>(),  // hexadecimal: exact
            "seed=" + std::to_string(test.at("seed").get<long long>()),
            "permutations=" + std::to_string(test.at("permutations").get<int>()),
            "rule=" + test.at("rule").get<std::string>()};
        const RunResult r = run_like_ado(stata, varlist, words, "");
        INFO(stata.errors);
        REQUIRE(r.rc == 0);
        REQUIRE(r.store_rc == 0);

        if (test.contains("tau")) {
            for (const char* key : {"tau", "crit", "p", "reject", "accuracy", "acc_lb", "bt_pass"})
                require_same(key, from_hex(test.at(key)), r.scalars.at(key));
        }
        if (test.contains("xi")) {
            const Matrix& separation = r.matrices.at("separation");
            REQUIRE(separation.rows == 1);
            REQUIRE(r.matrix_rownames.at("separation").at(0) == "Negative");
            require_same("xi", from_hex(test.at("xi")), separation.at(1, 1));
            require_same("separation crit", from_hex(test.at("sep_crit")), separation.at(1, 2));
            require_same("separation p", from_hex(test.at("sep_p")), separation.at(1, 3));
            require_same("separation pass", from_hex(test.at("sep_pass")), separation.at(1, 4));
            require_same("r(sep_p)", from_hex(test.at("sep_p")), r.scalars.at("sep_p"));
        }
    }
}
