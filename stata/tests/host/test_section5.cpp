// The paper's Section 5 from Stata (issue 11): human() returns Tables 9 and 10 and the
// Benjamini-Hochberg p-values, the numbers the command-line tool's batch --summary gives for the
// same passages; `llmvalidate sample` draws the rows the CLI's batch --sample draws; the paper
// option sets the paper's methods and structured output none.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

const std::string kTask = std::string(LLMV_SOURCE_DIR) + "/prompts/simple_sentiment.toml";

// Financial-news-like sentences with a human label and an agreement level, as the paper's
// Financial PhraseBank rows.
struct Row {
    std::string text, human, agreement;
};
std::vector<Row> corpus() {
    std::vector<Row> rows;
    const std::vector<std::string> subjects = {"Operating profit", "Net sales", "The order book",
                                               "Quarterly revenue", "The dividend"};
    const std::vector<std::pair<std::string, std::string>> moves = {
        {"rose by 12 percent from a year earlier.", "positive"},
        {"fell sharply after the loss of two clients.", "negative"},
        {"was unchanged over the period.", "neutral"}};
    int k = 0;
    for (const auto& subject : subjects)
        for (const auto& [move, label] : moves) {
            rows.push_back(
                {subject + " " + move, label, (k % 3 == 0) ? "100" : (k % 3 == 1 ? "66" : "50")});
            ++k;
        }
    return rows;
}

void load_corpus(Stata& stata, const std::vector<Row>& rows) {
    stata.clear();
    std::vector<std::string> text, human, agreement;
    for (const auto& row : rows) {
        text.push_back(row.text);
        human.push_back(row.human);
        agreement.push_back(row.agreement);
    }
    stata.add_string("text", text, /*strl=*/false);
    stata.add_string("human", human, false);
    stata.add_string("agreement", agreement, false);
    stata.select_all();
}

void write_csv(const std::string& path, const std::vector<Row>& rows) {
    std::ofstream out(path, std::ios::binary);
    out << "text,human,agreement\n";
    for (const auto& row : rows)
        out << '"' << row.text << "\"," << row.human << ',' << row.agreement << '\n';
}

std::string run_command(const std::string& command) {
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
    const int status = pclose(pipe);
    INFO(command << "\n" << out);
    REQUIRE(status == 0);
    return out;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

// A JSON number or null (the CLI's NaN) against a plugin value (Stata missing for NaN).
void check_number(const nlohmann::json& cli, double plugin, const std::string& what) {
    INFO(what << ": CLI " << cli.dump() << ", plugin " << plugin);
    if (cli.is_null())
        CHECK(plugin >= missing());
    else
        CHECK(same_bits(cli.get<double>(), plugin));
}

std::vector<std::string> validate_words(const std::string& extra = "") {
    std::vector<std::string> w = {
        "validate",  "text=1",     "human=2", "generate=1",      "m=20",          "n=5",
        "repeats=1", "alpha=0.05", "seed=11", "permutations=99", "concurrency=4", "dryrun=0"};
    if (!extra.empty()) w.push_back(extra);
    return w;
}

}  // namespace

TEST_CASE("human(): Tables 9 and 10 and the BH p-values in r(), as the CLI's batch --summary",
          "[validate][section5]") {
    const auto rows = corpus();
    Stata stata;
    load_plugin(stata);
    load_corpus(stata, rows);
    stata.set_local("llmv_task", kTask);
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_cache", "");
    const RunResult r = run_like_ado(stata, {"text", "human"}, validate_words(), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.store_rc == 0);
    REQUIRE(r.scalars.at("N") == static_cast<double>(rows.size()));

    // The same passages through the command-line tool.
    const std::string csv = temporary_path(".csv"), summary = temporary_path(".json"),
                      output = temporary_path(".out.csv");
    write_csv(csv, rows);
    run_command(std::string(LLMV_CLI_PATH) + " batch --task " + kTask + " --input " + csv +
                " --text-column text --human-label-column human --provider simulated -M 20 -n 5"
                " --seed 11 --permutations 99 --no-cache --quiet --summary " +
                summary + " --output " + output + " 2>&1");
    const auto cli = nlohmann::json::parse(read_text(summary));

    // Table 9: All, then each LLM label; n, n_valid, share_valid, n_human_agree, share_human.
    const Matrix& table9 = r.matrices.at("table9");
    const auto& rownames9 = r.matrix_rownames.at("table9");
    REQUIRE(
        r.matrix_colnames.at("table9") ==
        std::vector<std::string>{"n", "n_valid", "share_valid", "n_human_agree", "share_human"});
    REQUIRE(table9.rows == static_cast<int>(cli.at("table9").size()));
    for (int i = 1; i <= table9.rows; ++i) {
        const auto& row = cli.at("table9").at(static_cast<std::size_t>(i - 1));
        CHECK(rownames9.at(static_cast<std::size_t>(i - 1)) ==
              row.at("llm_label").get<std::string>());
        check_number(row.at("n"), table9.at(i, 1), "table9 n");
        check_number(row.at("n_valid"), table9.at(i, 2), "table9 n_valid");
        check_number(row.at("share_valid"), table9.at(i, 3), "table9 share_valid");
        check_number(row.at("n_human_agree"), table9.at(i, 4), "table9 n_human_agree");
        check_number(row.at("share_human"), table9.at(i, 5), "table9 share_human");
    }
    CHECK(table9.at(1, 1) > 0);  // some passages pass their prerequisites

    // Table 10: LLM label (rows) x human label (columns), share valid and counts.
    const Matrix& table10 = r.matrices.at("table10");
    const Matrix& table10_n = r.matrices.at("table10_n");
    const auto& cells = cli.at("table10");
    REQUIRE(static_cast<std::size_t>(table10.rows * table10.cols) == cells.size());
    REQUIRE(table10_n.rows == table10.rows);
    for (const auto& cell : cells) {
        const auto& rn = r.matrix_rownames.at("table10");
        const auto& cn = r.matrix_colnames.at("table10");
        const auto row = std::find(rn.begin(), rn.end(), cell.at("llm_label").get<std::string>());
        const auto col = std::find(cn.begin(), cn.end(), cell.at("human_label").get<std::string>());
        REQUIRE(row != rn.end());
        REQUIRE(col != cn.end());
        const int i = static_cast<int>(row - rn.begin()) + 1,
                  j = static_cast<int>(col - cn.begin()) + 1;
        check_number(cell.at("n"), table10_n.at(i, j), "table10_n");
        check_number(cell.at("share_valid"), table10.at(i, j), "table10 share_valid");
    }

    // Table 11: the disagreements with the human label that pass, in the CLI's order; a row
    // names the LLM label (equation) and the human label, its value is the observation.
    const auto& disagreements = cli.at("table11");
    REQUIRE(!disagreements.empty());  // the corpus has some, or this checks nothing
    const Matrix& table11 = r.matrices.at("table11");
    REQUIRE(r.matrix_colnames.at("table11") == std::vector<std::string>{"obs"});
    REQUIRE(static_cast<std::size_t>(table11.rows) == disagreements.size());
    for (std::size_t i = 0; i < disagreements.size(); ++i) {
        const auto& row = disagreements[i];
        const int obs = std::stoi(row.at("id").get<std::string>());
        CHECK(table11.at(static_cast<int>(i) + 1, 1) == obs);
        CHECK(r.matrix_roweqs.at("table11").at(i) == row.at("llm_label").get<std::string>());
        CHECK(r.matrix_rownames.at("table11").at(i) == row.at("human_label").get<std::string>());
        // The observation's own labels: the LLM's differs from the human's, and it is valid.
        const auto index = static_cast<std::size_t>(obs - 1);
        // Table 11 spells the human label as the label set S does ("positive" -> "Positive").
        std::string human = rows.at(index).human;
        human[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(human[0])));
        CHECK(human == row.at("human_label").get<std::string>());
        CHECK(stata.var("v_label").strings.at(index) == row.at("llm_label").get<std::string>());
        CHECK(stata.var("v_verdict").numbers.at(index) == 1);  // valid
    }
    CHECK(r.matrix_roweqs.at("table10").empty());

    // Benjamini-Hochberg: a column of r(results) and the variable v_p_bh, by passage.
    const Matrix& results = r.matrices.at("results");
    const auto& columns = r.matrix_colnames.at("results");
    REQUIRE(columns.back() == "p_bh");
    std::map<int, double> by_obs;
    for (int i = 1; i <= results.rows; ++i)
        by_obs[static_cast<int>(results.at(i, 1))] = results.at(i, results.cols);
    const auto& adjusted = cli.at("benjamini_hochberg");
    REQUIRE(adjusted.size() == rows.size());
    for (const auto& entry : adjusted) {
        const int obs = std::stoi(entry.at("id").get<std::string>());
        check_number(entry.at("p_bh"), by_obs.at(obs),
                     "p_bh of observation " + std::to_string(obs));
        check_number(entry.at("p_bh"),
                     stata.var("v_p_bh").numbers.at(static_cast<std::size_t>(obs - 1)),
                     "v_p_bh of observation " + std::to_string(obs));
    }
    std::remove(csv.c_str());
    std::remove(summary.c_str());
    std::remove(output.c_str());
}

TEST_CASE("r(results) that Stata cannot make is left out, and the variables are still filled",
          "[validate][section5][matrix]") {
    Stata stata;
    load_plugin(stata);
    load_corpus(stata, corpus());
    stata.set_local("llmv_task", kTask);
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_cache", "");
    stata.max_matrix_rows = 10;  // below the 15 passages; the plugin was not told (matrixmax)
    const RunResult r = run_like_ado(stata, {"text", "human"}, validate_words(), "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(r.store_rc == 0);
    CHECK(r.matrices.count("results") == 0);
    CHECK(r.matrices.count("table9") == 1);
    CHECK(r.scalars.at("N") == 15);
    for (std::size_t obs = 0; obs < 15; ++obs)
        CHECK(stata.var("v_tau").numbers.at(obs) < missing());
}

TEST_CASE("llmvalidate sample draws the rows the CLI's batch --sample draws",
          "[sample][section5]") {
    const auto rows = corpus();
    Stata stata;
    load_plugin(stata);
    load_corpus(stata, rows);

    // The ado: the columns of where() (the engine parses it), then the draw.
    const auto draw = [&](const std::string& where, int n, const std::string& seed) {
        stata.set_local("llmv_where", where);
        REQUIRE(stata.call({"wherecolumns"}) == 0);
        std::vector<std::string> varlist = {"marker"};
        std::string given;
        for (const auto& column : split_list(stata.local("llmv_where_columns"))) {
            varlist.push_back(column);
            given += " " + column;
        }
        stata.set_local("llmv_where_vars", given);
        if (stata.find("marker") >= 0) stata.drop("marker");
        stata.add_numeric("marker", std::vector<double>(rows.size(), 0.0));
        stata.set_varlist(varlist);
        // An empty seed: the ado passes no seed= (the engine's default seed).
        std::vector<std::string> words = {"sample", "n=" + std::to_string(n)};
        if (!seed.empty()) words.push_back("seed=" + seed);
        const int rc = stata.call(words);
        std::set<int> drawn;
        if (rc == 0)
            for (std::size_t i = 0; i < rows.size(); ++i)
                if (stata.var("marker").numbers[i] == 1) drawn.insert(static_cast<int>(i) + 1);
        return std::make_pair(rc, drawn);
    };

    const auto [rc, drawn] = draw("agreement=50|66", 4, "11");
    INFO(stata.errors);
    REQUIRE(rc == 0);
    REQUIRE(drawn.size() == 4);
    CHECK(stata.local("llmv_sample_n") == "4");
    CHECK(stata.local("llmv_sample_population") == "10");
    for (int obs : drawn) CHECK(rows[static_cast<std::size_t>(obs - 1)].agreement != "100");

    // The CLI on the same rows: the ids it validates are the rows it drew.
    const std::string csv = temporary_path(".csv"), output = temporary_path(".out.csv");
    write_csv(csv, rows);
    run_command(std::string(LLMV_CLI_PATH) + " batch --task " + kTask + " --input " + csv +
                " --provider simulated -M 19 -n 5 --permutations 99 --no-cache --quiet"
                " --sample 4 --sample-seed 11 --where 'agreement=50|66' --output " +
                output + " 2>&1");
    std::istringstream lines(read_text(output));
    std::string line;
    std::getline(lines, line);  // header: index, then id
    REQUIRE(line.rfind("index,id,", 0) == 0);
    std::set<int> cli_ids;
    while (std::getline(lines, line)) {
        if (line.empty()) continue;
        const auto comma = line.find(',');
        cli_ids.insert(std::stoi(line.substr(comma + 1, line.find(',', comma + 1) - comma - 1)));
    }
    CHECK(cli_ids == drawn);

    // Another seed, another sample; the same seed, the same sample; no where(): every row.
    CHECK(draw("agreement=50|66", 4, "12").second != drawn);
    CHECK(draw("agreement=50|66", 4, "11").second == drawn);
    // Without seed(): the engine's default seed, as in the CLI and R.
    CHECK(stata.local("llmv_sample_seed") == "11");
    CHECK(draw("agreement=50|66", 4, "").second == draw("agreement=50|66", 4, "1").second);
    CHECK(stata.local("llmv_sample_seed") == "1");
    const auto all = draw("", 15, "3");
    CHECK(all.second.size() == 15);
    // if: observation 1 outside the sample is never drawn.
    stata.if_mask = std::vector<bool>(rows.size(), true);
    stata.if_mask[0] = false;
    CHECK(draw("", 14, "3").second.count(1) == 0);
    stata.select_all();
    std::remove(csv.c_str());
    std::remove(output.c_str());
}

TEST_CASE("llmvalidate sample: errors name the option, the value and what is allowed",
          "[sample][errors]") {
    Stata stata;
    load_plugin(stata);
    load_corpus(stata, corpus());
    stata.add_numeric("marker", std::vector<double>(15, 0.0));
    stata.set_varlist({"marker", "agreement"});
    stata.set_local("llmv_where_vars", "agreement");

    stata.set_local("llmv_where", "agreement=100");
    CHECK(stata.call({"sample", "n=6", "seed=1"}) == 198);
    CHECK(stata.errors.find("option n() must be at most the 5 observations there are to draw "
                            "from (after if, in and where()); received 6") != std::string::npos);
    CHECK(stata.errors.find("rows") == std::string::npos);

    stata.errors.clear();
    stata.set_local("llmv_where", "=100");
    CHECK(stata.call({"wherecolumns"}) == 198);
    CHECK(stata.errors.find("`where()` must be conditions COLUMN=VALUE") != std::string::npos);

    stata.errors.clear();
    stata.set_local("llmv_where", "agreemnt=100");
    stata.set_local("llmv_where_vars", "");
    stata.set_varlist({"marker"});
    CHECK(stata.call({"sample", "n=1", "seed=1"}) == 198);
    CHECK(stata.errors.find("option where() must name variables of the data; received agreemnt") !=
          std::string::npos);

    stata.errors.clear();
    stata.set_local("llmv_where", "");
    CHECK(stata.call({"sample", "n=-1", "seed=1"}) == 198);
    CHECK(stata.errors.find("option n() must be a whole number of observations to draw, 0 or more; "
                            "received `-1'") != std::string::npos);
    stata.errors.clear();
    CHECK(stata.call({"sample", "n=1", "seed=x"}) == 198);
    CHECK(stata.errors.find(
              "option seed() must be an integer from 0 to 18446744073709551615; received `x'") !=
          std::string::npos);
    CHECK(std::all_of(stata.var("marker").numbers.begin(), stata.var("marker").numbers.end(),
                      [](double v) { return v == 0; }));
}

// paper: the engine's preset, as the CLI's --paper and R's preset = "paper": the paper's
// bootstrap tests and structured output none (one user message, no schema, no tools).
TEST_CASE("validate paper: the paper's methods and structured output none",
          "[validate][paper][server]") {
    FakeServerProcess server;
    Stata stata;
    load_plugin(stata);
    load_corpus(stata, corpus());
    stata.if_mask = std::vector<bool>(15, false);
    stata.if_mask[0] = true;  // one passage
    stata.set_local("llmv_task", kTask);
    stata.set_local("llmv_provider", "openai");
    stata.set_local("llmv_model", "fake-chat");
    stata.set_local("llmv_embedding_model", "fake-embed");
    stata.set_local("llmv_base_url", server.base_url());
    stata.set_local("llmv_apikey", "sk-host-secret");
    stata.set_local("llmv_cache", "");
    std::vector<std::string> w = validate_words("preset=paper");
    w[2] = "human=0";
    const RunResult r = run_like_ado(stata, {"text"}, w, "v_");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    CHECK(r.macros.at("vmethod") == "paper");
    CHECK(r.macros.at("smethod") == "paper");
    std::size_t chats = 0;
    for (const auto& answer : server.control("/_control/served")) {
        if (answer["endpoint"] != "openai.chat") continue;
        ++chats;
        const auto request = nlohmann::json::parse(answer["request"].get<std::string>());
        INFO(request.dump());
        CHECK(request.count("response_format") == 0);
        CHECK(request.count("tools") == 0);
        REQUIRE(request.at("messages").size() == 1);
        CHECK(request["messages"][0]["role"] == "user");
    }
    CHECK(chats > 0);

    // An option given beside paper wins: structured(schema) asks for the schema again.
    server.control("/_control/reset", "{}");
    stata.errors.clear();
    std::vector<std::string> with_schema = w;
    with_schema.push_back("structured=schema");
    const RunResult schema = run_like_ado(stata, {"text"}, with_schema, "w_");
    REQUIRE(schema.rc == 0);
    CHECK(schema.macros.at("vmethod") == "paper");
    bool any_schema = false;
    for (const auto& answer : server.control("/_control/served"))
        if (answer["endpoint"] == "openai.chat" &&
            nlohmann::json::parse(answer["request"].get<std::string>()).count("response_format"))
            any_schema = true;
    CHECK(any_schema);
}
