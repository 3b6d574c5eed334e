// Golden files of every shipped task's rendered prompts, and the Section 4 passages' prompts.
// A change to a template or to the renderer fails here; if the change is intended, regenerate
// with LLMV_UPDATE_GOLDEN=1 build/tests/tasks/test_tasks and review the diff of
// tests/fixtures/prompts/.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/task.hpp"

namespace {

const std::string kPromptsDir = std::string(LLMV_SOURCE_DIR) + "/prompts";
const std::string kGoldenDir = std::string(LLMV_FIXTURES) + "/prompts";

// A sentence with braces: values are inserted as they are, never parsed as templates.
const std::string kSentence =
    "Operating profit rose to EUR 13.1 mn from EUR 8.7 mn in the corresponding period in "
    "2007 {a year earlier}.";

std::string read(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::ostringstream content;
    content << file.rdbuf();
    return content.str();
}

// Compares with the golden file (or writes it with LLMV_UPDATE_GOLDEN=1), reporting the first
// line that differs.
void check_golden(const std::string& name, const std::string& rendered) {
    const std::string path = kGoldenDir + "/" + name + ".txt";
    const char* update = std::getenv("LLMV_UPDATE_GOLDEN");
    if (update && std::string(update) == "1") {
        std::ofstream(path, std::ios::binary) << rendered;
        WARN("wrote " << path);
        return;
    }
    const std::string golden = read(path);
    INFO("golden file " << path << " (regenerate with LLMV_UPDATE_GOLDEN=1 if intended)");
    REQUIRE_FALSE(golden.empty());
    if (golden != rendered) {
        std::istringstream a(golden), b(rendered);
        std::string line_a, line_b;
        int line = 0;
        while (true) {
            ++line;
            const bool more_a = static_cast<bool>(std::getline(a, line_a));
            const bool more_b = static_cast<bool>(std::getline(b, line_b));
            if (!more_a && !more_b) break;
            if (line_a != line_b || more_a != more_b) {
                FAIL("line " << line << " differs:\n  golden:   " << line_a
                             << "\n  rendered: " << line_b);
            }
        }
    }
    CHECK(golden == rendered);
}

std::string render_all(const llmv::Task& task, const std::string& text,
                       const llmv::TaskVariables& variables) {
    std::string out = "### task " + task.name() + ": annotation\n";
    out += task.render_annotation(text, variables) + "\n";
    for (const auto& label : task.labels()) {
        out += "### task " + task.name() + ": simulation, label " + label + ", n = 10\n";
        out += task.render_simulation(label, 10, text, variables) + "\n";
    }
    return out;
}

}  // namespace

TEST_CASE("every shipped task renders as its golden file") {
    const auto names = llmv::list_tasks(kPromptsDir);
    const std::vector<std::string> expected = {
        "clarity",           "clarity_undefined", "detailed_sentiment", "financial_phrasebank",
        "general_sentiment", "simple_sentiment",  "temporal_focus",     "topic"};
    REQUIRE(names == expected);
    for (const auto& name : names) {
        INFO("task " << name);
        const auto task = llmv::load_task(name, kPromptsDir);
        CHECK(task.name() == name);
        CHECK_FALSE(task.source().empty());
        llmv::TaskVariables variables;
        if (task.accepts_variable("topic")) variables["topic"] = "economic risks";
        if (task.accepts_variable("genre")) variables["genre"] = "comments on a Reddit investing forum";
        check_golden(name, render_all(task, kSentence, variables));
    }
}

TEST_CASE("the Section 4 passages render their own simulation prompts as golden files") {
    const auto passages = llmv::load_passages(kPromptsDir + "/passages/section4.toml");
    std::vector<std::string> ids;
    for (const auto& passage : passages) ids.push_back(passage.id);
    REQUIRE(ids == std::vector<std::string>{"10k_filing", "earnings_call", "news_article", "speech",
                                            "reddit_comment"});
    std::string out;
    for (const auto& name : {"simple_sentiment", "detailed_sentiment", "clarity", "temporal_focus",
                             "topic"}) {
        const auto task = llmv::load_task(name, kPromptsDir);
        for (const auto& passage : passages) {
            INFO("passage " << passage.id << ", task " << name);
            REQUIRE(passage.simulation_templates.count(name) == 1);
            const auto for_passage = llmv::task_for_passage(task, passage);
            CHECK(for_passage.simulation_template() != "");
            llmv::TaskVariables variables;
            if (task.accepts_variable("topic")) {
                variables["topic"] = passage.variables.at("topic");
                REQUIRE_FALSE(passage.variables.at("topic_not_discussed").empty());
            }
            out += "##### passage " + passage.id + "\n";
            out += render_all(for_passage, passage.text, variables);
        }
    }
    check_golden("section4", out);
}

TEST_CASE("the 10-K passage's simple-sentiment prompt is the task's own (both verbatim)") {
    const auto passages = llmv::load_passages(kPromptsDir + "/passages/section4.toml");
    for (const auto& name : {"simple_sentiment", "clarity"}) {
        const auto task = llmv::load_task(name, kPromptsDir);
        CHECK(passages.at(0).simulation_templates.at(name) == task.simulation_template());
    }
}

// An independent check of the transcription: every prompt the paper prints verbatim occurs in
// the paper's text once spaces and the PDF's line-continuation marks are taken out, and its
// typeset apostrophes (’, ‘) read as the ASCII ' of the author's code and of our prompts.
TEST_CASE("the verbatim prompts match the paper's text") {
    const std::string paper_path =
        std::string(LLMV_SOURCE_DIR) + "/../shared/paper/hansen-2026-validating-llm-annotations.txt";
    std::string paper = read(paper_path);
    if (paper.empty()) {
        WARN("skipped: the paper's text is not at " << paper_path);
        return;
    }
    auto squeeze = [](std::string text) {
        for (const std::string mark : {"(cid:44)→"}) {
            for (auto at = text.find(mark); at != std::string::npos; at = text.find(mark)) {
                text.erase(at, mark.size());
            }
        }
        for (const std::string curly : {"’", "‘"}) {
            for (auto at = text.find(curly); at != std::string::npos; at = text.find(curly)) {
                text.replace(at, curly.size(), "'");
            }
        }
        text.erase(std::remove_if(text.begin(), text.end(),
                                  [](char c) { return c == ' ' || c == '\n' || c == '\t'; }),
                   text.end());
        return text;
    };
    paper = squeeze(paper);
    std::vector<std::pair<std::string, std::string>> verbatim;
    for (const auto& name : {"simple_sentiment", "clarity", "financial_phrasebank"}) {
        const auto task = llmv::load_task(name, kPromptsDir);
        verbatim.emplace_back(name + std::string(" simulation"), task.simulation_template());
        // The clarity annotation prompt spans a page break: check it up to "PASSAGE".
        const auto& annotation = task.annotation_template();
        verbatim.emplace_back(name + std::string(" annotation"),
                              annotation.substr(0, annotation.find("PASSAGE:")));
        for (const auto& variable : task.label_variables()) {
            for (const auto& value : variable.second) {
                verbatim.emplace_back(name + (" " + variable.first + "." + value.first), value.second);
            }
        }
    }
    for (const auto& [what, text] : verbatim) {
        INFO(what << ": " << text);
        CHECK(paper.find(squeeze(text)) != std::string::npos);
        // The prompts carry ASCII quotes, as the author's code has them.
        CHECK(text.find("’") == std::string::npos);
        CHECK(text.find("‘") == std::string::npos);
    }

    // The Section 4 passages as quoted. The speech spans a page break (after "expected") and
    // carries the speech's own footnote marker "3" after "stress." in the paper.
    for (const auto& passage : llmv::load_passages(kPromptsDir + "/passages/section4.toml")) {
        std::string text = squeeze(passage.text);
        const auto marker = text.find("understress.");
        if (marker != std::string::npos) text.insert(marker + 12, "3");
        const auto page_break = text.find("investorsexpected");
        std::vector<std::string> parts = {text};
        if (page_break != std::string::npos) {
            parts = {text.substr(0, page_break + 17), text.substr(page_break + 17)};
        }
        for (const auto& part : parts) {
            INFO("passage " << passage.id << ": " << part);
            CHECK(paper.find(part) != std::string::npos);
        }
    }
    // The extended Reddit conversation of Section 4.1 (p. 16), which carries the paper's
    // footnote marker "13" after "lucky." and ends the quotation after "2092.".
    const auto conversation =
        llmv::load_passages(kPromptsDir + "/passages/reddit_conversation.toml");
    REQUIRE(conversation.size() == 1);
    std::string text = squeeze(conversation[0].text);
    const auto lucky = text.find("lucky.");
    REQUIRE(lucky != std::string::npos);
    text.insert(lucky + 6, "13");
    INFO("the Reddit conversation: " << text);
    CHECK(paper.find(text) != std::string::npos);
}

TEST_CASE("passage_input: the passage's template for this task and the variables it accepts") {
    const llmv::Task task = llmv::load_task("topic", kPromptsDir);
    REQUIRE(task.required_variables() == std::vector<std::string>{"topic"});
    llmv::TaskPassage passage;
    passage.id = "p1";
    passage.text = "A passage.";
    passage.variables = {{"topic", "economic risks"}, {"topic_not_discussed", "investments"}};
    passage.simulation_templates = {{"topic", "Write {n} passages about {label}."},
                                    {"simple_sentiment", "not for this task"}};
    const llmv::pipeline::PassageInput input = llmv::passage_input(task, passage);
    CHECK(input.id == "p1");
    CHECK(input.text == "A passage.");
    CHECK(input.human_label.empty());
    CHECK(input.simulation_template == "Write {n} passages about {label}.");
    CHECK(input.variables == std::map<std::string, std::string>{{"topic", "economic risks"}});
    passage.simulation_templates.erase("topic");
    CHECK(llmv::passage_input(task, passage).simulation_template.empty());
    // Issue 25: a key that names no task (a typo) is refused, not ignored; an alias is a name.
    passage.simulation_templates = {{"topik", "Write {n} passages about {label}."}};
    for (const auto& call : {std::function<void()>([&] { llmv::passage_input(task, passage); }),
                             std::function<void()>([&] { llmv::task_for_passage(task, passage); })}) {
        CHECK_THROWS_WITH(call(), Catch::Matchers::Contains("passage \"p1\": simulation.topik names no task") &&
                                      Catch::Matchers::Contains("topic") &&
                                      Catch::Matchers::Contains("simple_sentiment (or sentiment)"));
    }
    passage.simulation_templates = {{"sentiment", "Write {n} passages, {label}."}};
    CHECK(llmv::passage_input(llmv::load_task("simple_sentiment", kPromptsDir), passage).simulation_template ==
          "Write {n} passages, {label}.");
}

TEST_CASE("passage_inputs: the task of the run read from the configuration, once for every passage") {
    llmv::pipeline::ValidationConfig config;
    config.task_path = std::string(kPromptsDir) + "/topic.toml";
    llmv::TaskPassage first;
    first.id = "p1";
    first.text = "First.";
    first.variables = {{"topic", "economic risks"}, {"not_a_variable", "dropped"}};
    first.simulation_templates = {{"topic", "Write {n} passages about {label}."}};
    llmv::TaskPassage second;
    second.id = "p2";
    second.text = "Second.";
    second.simulation_templates = {{"simple_sentiment", "not for this task"}};
    const std::vector<llmv::pipeline::PassageInput> inputs =
        llmv::passage_inputs(config, {first, second}, "built by llm_task()");
    REQUIRE(inputs.size() == 2);
    CHECK(inputs[0].id == "p1");
    CHECK(inputs[0].text == "First.");
    CHECK(inputs[0].simulation_template == "Write {n} passages about {label}.");
    CHECK(inputs[0].variables == std::map<std::string, std::string>{{"topic", "economic risks"}});
    CHECK(inputs[1].id == "p2");
    CHECK(inputs[1].simulation_template.empty());
    CHECK(inputs[1].variables.empty());
    // A task given as TOML text (R's llm_task(), the CLI's task from options) is read the same way.
    std::ifstream file(config.task_path);
    std::stringstream toml;
    toml << file.rdbuf();
    config.task_path.clear();
    config.task_source = toml.str();
    CHECK(llmv::passage_inputs(config, {first, second}, "built by llm_task()")[0].variables == inputs[0].variables);
    // A broken text is named as the caller names it (R: "built by llm_task()").
    config.task_source = "labels = [";
    CHECK_THROWS_WITH(llmv::passage_inputs(config, {first}, "built by llm_task()"),
                      Catch::Matchers::Contains("built by llm_task()"));
    config.task_source.clear();
    config.task_path = std::string(kPromptsDir) + "/no_such_task.toml";
    CHECK_THROWS_AS(llmv::passage_inputs(config, {first}, "built by llm_task()"), llmv::Error);
    // No task at all: the run's message (the argument, what it received, what is allowed), the
    // same from R's passages as from the run and the dry run.
    config.task_path.clear();
    const std::string no_task =
        "`task` must be a shipped task name (e.g. simple_sentiment) or the path of a task file; "
        "received \"\".";
    CHECK_THROWS_WITH(llmv::passage_inputs(config, {first}, "built by llm_task()"), no_task);
    CHECK_THROWS_WITH(llmv::task_of(config, "built by llm_task()"), no_task);
    config.provider = "simulated";
    const llmv::pipeline::PassageInput input =
        llmv::passage_input(llmv::load_task(std::string(kPromptsDir) + "/topic.toml"), first);
    CHECK_THROWS_WITH(llmv::pipeline::dry_run(config, {input}), no_task);
}
