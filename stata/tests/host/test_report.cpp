// `llmvalidate report using FILE.html`: the plugin writes the run document of a validation
// (local llmv_rundoc, as the ado names it) and renders it with the engine's report, the same
// file as the command-line tool's `run --report` for the same run (up to the creation line).
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fake_stata.hpp"
#include "host_test_helpers.hpp"

using namespace host;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The report without its creation line (the only line that depends on when it was written).
std::string without_created(const std::string& html) {
    std::istringstream in(html);
    std::string line, out;
    while (std::getline(in, line))
        if (line.rfind("<p class=\"created\">", 0) != 0) out += line + "\n";
    return out;
}

}  // namespace

TEST_CASE("report: the last run's report equals the command-line tool's", "[report]") {
    const std::string cache = temporary_path(".sqlite");
    const std::string document = temporary_path(".json");
    const std::string stata_html = temporary_path(".html");
    const std::string cli_html = temporary_path(".html");
    const std::string text = "Profit fell 40% as loan losses doubled.";
    Stata stata;
    load_plugin(stata);
    stata.clear();
    stata.add_string("text", {text}, /*strl=*/true);
    stata.select_all();
    stata.set_local("llmv_task", std::string(LLMV_SOURCE_DIR) + "/prompts/simple_sentiment.toml");
    stata.set_local("llmv_provider", "simulated");
    stata.set_local("llmv_cache", cache);
    stata.set_local("llmv_rundoc", document);
    const RunResult r = run_like_ado(stata, {"text"},
                                     {"validate", "text=1", "human=0", "generate=0", "seed=1"}, "");
    INFO(stata.errors << stata.output);
    REQUIRE(r.rc == 0);
    REQUIRE(read_file(document).find("\"format\": \"llmvalidate-run/1\"") != std::string::npos);

    // llmvalidate report using FILE.html
    stata.set_local("llmv_report", stata_html);
    REQUIRE(stata.call({"report", "replace=0"}) == 0);
    const std::string html = read_file(stata_html);
    REQUIRE(html.find("<div class=\"synthetic\"") != std::string::npos);
    // An existing file needs replace.
    REQUIRE(stata.call({"report", "replace=0"}) == 602);
    REQUIRE(stata.call({"report", "replace=1"}) == 0);

    // The command-line tool, same run (the same cache and seed): the same file.
    const std::string command = std::string("'") + LLMV_CLI_PATH +
                                "' run --provider simulated --task simple_sentiment --text '" +
                                text + "' --seed 1 --cache '" + cache + "' --report '" + cli_html +
                                "' > /dev/null 2>&1";
    REQUIRE(std::system(command.c_str()) == 0);
    const std::string cli = read_file(cli_html);
    REQUIRE(cli.size() > 10000);
    REQUIRE(without_created(html) == without_created(cli));

    // No run document: a clear error.
    stata.set_local("llmv_rundoc", document + ".missing");
    REQUIRE(stata.call({"report", "replace=1"}) == 601);
    for (const std::string& path : {cache, document, stata_html, cli_html})
        std::remove(path.c_str());
}
