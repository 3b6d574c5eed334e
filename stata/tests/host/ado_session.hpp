// A replay of llmvalidate.ado for the host tests that run commands as a user types them (the
// help's Examples, the docs' Stata routes): a command line is read against the ado-file's own
// `syntax` statements (option names, abbreviations, which options keep quotes as typed) and
// turned into the plugin calls its program makes (Validate, Sample, Power, Cache, Models,
// Overview), with the locals RunPlugin sets. An option a program does not declare fails the test.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fake_server_process.hpp"
#include "fake_stata.hpp"
#include "section4_csv.hpp"

namespace host {

// ---- the ado-file's syntax -------------------------------------------------------------------

struct OptionSpec {
    std::string name;      // lower case, in full
    std::size_t shortest;  // the shortest abbreviation Stata accepts
    std::string type;      // what the parentheses hold ("" for an option without argument)
};

// The ado-file with its /* */ comments (the GENERATED markers) dropped and its continuation
// lines (///) joined.
inline std::string joined_ado() {
    const std::string uncommented =
        std::regex_replace(read_whole_file(std::string(LLMV_SOURCE_DIR) + "/stata/llmvalidate.ado"),
                           std::regex(R"(/\*[^*]*\*/)"), "");
    return std::regex_replace(uncommented, std::regex(R"([ \t]*///[^\n]*\n[ \t]*)"), " ");
}

// The options of program `name`'s syntax statement.
inline std::map<std::string, OptionSpec> syntax_options(const std::string& ado,
                                                        const std::string& program) {
    const auto begin = ado.find("program define " + program + ",");
    REQUIRE(begin != std::string::npos);
    const auto at = ado.find("\n    syntax ", begin);
    REQUIRE(at != std::string::npos);
    const std::string statement = ado.substr(at, ado.find('\n', at + 1) - at);
    const auto comma = statement.find(',');
    REQUIRE(comma != std::string::npos);
    const std::string options = statement.substr(comma + 1);
    std::map<std::string, OptionSpec> specs;
    const std::regex token(R"(([A-Za-z]+)(?:\(([^)]*)\))?)");
    for (auto it = std::sregex_iterator(options.begin(), options.end(), token);
         it != std::sregex_iterator(); ++it) {
        const std::string written = (*it)[1].str();
        OptionSpec spec;
        std::size_t capitals = 0;
        while (capitals < written.size() &&
               std::isupper(static_cast<unsigned char>(written[capitals])))
            ++capitals;
        for (char c : written)
            spec.name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        spec.shortest = capitals == 0 ? written.size() : capitals;
        spec.type = (*it)[2].str();
        specs[spec.name] = spec;
    }
    return specs;
}

// The engine settings a program passes as `name=value` when given (its `foreach setting in`).
inline std::vector<std::string> passed_settings(const std::string& ado,
                                                const std::string& program) {
    const auto begin = ado.find("program define " + program + ",");
    const auto end = ado.find("\nend", begin);
    const std::string body = ado.substr(begin, end - begin);
    std::smatch list;
    REQUIRE(std::regex_search(body, list, std::regex(R"(foreach setting in ([^{]*)\{)")));
    std::vector<std::string> names;
    std::istringstream words(list[1].str());
    for (std::string word; words >> word;) names.push_back(word);
    return names;
}

// ---- one command of the help --------------------------------------------------------------

struct Command {
    std::string text;                 // as shown, SMCL's {c -(} and {c )-} decoded
    std::vector<std::string> before;  // the words before the comma (qualifiers removed)
    std::string if_expression, in_range, using_file;
    std::map<std::string, std::string> options;  // written name -> argument as typed
};

inline std::string decode_smcl(std::string text) {
    text = std::regex_replace(text, std::regex(R"(\{c -\(\})"), "{");
    return std::regex_replace(text, std::regex(R"(\{c \)-\})"), "}");
}

inline Command parse_command(const std::string& text) {
    Command command;
    command.text = text;
    // The comma that ends the command part: the first one outside quotes and parentheses.
    std::size_t comma = std::string::npos;
    int depth = 0;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size() && comma == std::string::npos; ++i) {
        if (text[i] == '"') quoted = !quoted;
        if (quoted) continue;
        if (text[i] == '(') ++depth;
        if (text[i] == ')') --depth;
        if (text[i] == ',' && depth == 0) comma = i;
    }
    std::istringstream words(text.substr(0, comma));
    std::string word, *qualifier = nullptr;
    while (words >> word) {
        if (word == "if")
            qualifier = &command.if_expression;
        else if (word == "in")
            qualifier = &command.in_range;
        else if (word == "using")
            qualifier = &command.using_file;
        else if (qualifier)
            *qualifier += (qualifier->empty() ? "" : " ") + word;
        else
            command.before.push_back(word);
    }
    if (comma == std::string::npos) return command;
    const std::string rest = text.substr(comma + 1);
    for (std::size_t i = 0; i < rest.size();) {
        if (std::isspace(static_cast<unsigned char>(rest[i]))) {
            ++i;
            continue;
        }
        std::size_t start = i;
        while (i < rest.size() &&
               (std::isalnum(static_cast<unsigned char>(rest[i])) || rest[i] == '_'))
            ++i;
        REQUIRE(i > start);
        const std::string name = rest.substr(start, i - start);
        std::string argument;
        if (i < rest.size() && rest[i] == '(') {
            int level = 0;
            bool in_quotes = false;
            std::size_t j = i;
            for (; j < rest.size(); ++j) {
                if (rest[j] == '"') in_quotes = !in_quotes;
                if (in_quotes) continue;
                if (rest[j] == '(') ++level;
                if (rest[j] == ')' && --level == 0) break;
            }
            REQUIRE(j < rest.size());
            argument = rest.substr(i + 1, j - i - 1);
            i = j + 1;
        }
        command.options[name] = argument;
    }
    return command;
}

// A command's options by their full names; reading one that was not given gives "" and adds
// nothing (unlike std::map's operator[]).
class Options {
  public:
    bool has(const std::string& name) const { return values_.count(name) > 0; }
    std::string get(const std::string& name) const {
        const auto found = values_.find(name);
        return found == values_.end() ? std::string() : found->second;
    }
    void set(const std::string& name, const std::string& value) { values_[name] = value; }

  private:
    std::map<std::string, std::string> values_;
};

// The command's options by their full names, checked against the program's syntax; a string
// option loses its enclosing quotes unless the syntax says asis, as Stata's syntax does.
inline Options resolve_options(const Command& command,
                               const std::map<std::string, OptionSpec>& specs) {
    Options resolved;
    for (const auto& [written, argument] : command.options) {
        std::string lower;
        for (char c : written)
            lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const OptionSpec* found = nullptr;
        for (const auto& [name, spec] : specs)
            if (lower.size() >= spec.shortest && name.compare(0, lower.size(), lower) == 0)
                found = &spec;
        INFO(command.text);
        if (!found) FAIL("option " << written << "() is not in the ado-file's syntax");
        std::string value = argument;
        if (found->type.find("asis") == std::string::npos && value.size() >= 2 &&
            value.front() == '"' && value.back() == '"')
            value = value.substr(1, value.size() - 2);
        if (found->type.empty()) value = "1";
        resolved.set(found->name, value);
    }
    return resolved;
}

// ---- the session: Stata's state across the help's lines ----------------------------------------

struct Session {
    Stata stata;
    std::string ado = joined_ado();
    std::filesystem::path folder;   // the working directory (net get's target)
    std::optional<RunResult> last;  // r() of the last llmvalidate command
    std::uint64_t stata_seed = 0;   // set seed: the ado's runiformint() draws stand for it
    std::set<std::string> ran;      // llmvalidate lines run here
    std::string last_run;           // $LLMV_LAST_RUN: the last run's document
    std::vector<std::string> reports;  // the files `llmvalidate report` wrote
    std::unique_ptr<FakeServerProcess> server;

    std::string seed_draw() {
        return std::to_string(1 + (stata_seed * 2654435761u + ran.size()) % 2147483645u);
    }

    // The observations a command uses: its if expression (`if VAR`: VAR true) and in range.
    std::vector<bool> touse(const Command& command) {
        std::vector<bool> use(static_cast<std::size_t>(stata.nobs), true);
        if (!command.if_expression.empty()) {
            INFO(command.text);
            REQUIRE(std::regex_match(command.if_expression, std::regex(R"(\w+)")));
            const Variable& marker = stata.var(command.if_expression);
            for (std::size_t i = 0; i < use.size(); ++i)
                use[i] = marker.numbers[i] != 0 && marker.numbers[i] < missing();
        }
        if (!command.in_range.empty()) {
            std::smatch range;
            REQUIRE(std::regex_match(command.in_range, range, std::regex(R"((\d+)/(\d+))")));
            for (std::size_t i = 0; i < use.size(); ++i)
                use[i] = use[i] && i + 1 >= std::stoul(range[1]) && i + 1 <= std::stoul(range[2]);
        }
        return use;
    }

    // FindTask: a file, else a shipped task found on the ado-path (the install folder).
    std::string find_task(const std::string& task) {
        if (std::filesystem::exists(folder / task)) return (folder / task).string();
        stata.set_local("llmv_task", task);
        REQUIRE(stata.call({"task"}) == 0);
        std::string name = stata.local("llmv_task_name");
        if (name.empty()) name = task;
        const std::filesystem::path file =
            std::filesystem::path(LLMV_NET_FOLDER) / (name + ".toml");
        INFO("task " << task);
        REQUIRE(std::filesystem::exists(file));
        return file.string();
    }

    // AsString: a strL copy of a variable, as the ado makes for human() and vars().
    std::string string_copy(const std::string& name, const std::string& copy) {
        const Variable source = stata.var(name);
        std::vector<std::string> values(static_cast<std::size_t>(stata.nobs));
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (source.kind != Kind::numeric) {
                values[i] = source.strings[i];
            } else if (source.numbers[i] < missing()) {
                std::ostringstream text;
                text.precision(18);
                text << source.numbers[i];
                values[i] = text.str();
            }
        }
        stata.add_string(copy, values, /*strl=*/true);
        return copy;
    }

    void clear_locals() {
        for (const char* name :
             {"llmv_labels",          "llmv_annotation",     "llmv_simulation",
              "llmv_taskvars",        "llmv_taskvars_found", "llmv_embmatrix",
              "llmv_embfile",         "llmv_generations",    "llmv_task",
              "llmv_provider",        "llmv_model",          "llmv_embedding",
              "llmv_embedding_model", "llmv_base_url",       "llmv_embedding_base_url",
              "llmv_cache",           "llmv_price_table",    "llmv_truelabel",
              "llmv_topic",           "llmv_apikey",         "llmv_keyenv"})
            stata.set_local(name, "");
    }

    std::string default_cache(const std::string& given) {
        if (!given.empty()) return given;
        REQUIRE(stata.call({"cachepath"}) == 0);
        return stata.local("llmv_cache_path");
    }

    // Validate: the plugin calls of the ado's program of that name.
    void validate(const Command& command) {
        auto options = resolve_options(command, syntax_options(ado, "Validate"));
        if (server && options.get("provider") == "anthropic") {
            options.set("baseurl", server->root_url());
            options.set("embbaseurl", server->base_url());
            options.set("embmodel", "fake-embed");
        }
        INFO(command.text);
        REQUIRE(command.before.size() == 1);
        const std::string passages = command.before[0];
        REQUIRE(stata.var(passages).kind != Kind::numeric);
        std::vector<bool> use = touse(command);
        // ExcludeMissing: an observation with an empty passage is left out.
        for (std::size_t i = 0; i < use.size(); ++i)
            if (stata.var(passages).strings[i].empty()) use[i] = false;
        clear_locals();
        const bool dryrun = options.has("dryrun") > 0;
        const std::string seed = options.has("seed") ? options.get("seed") : seed_draw();
        std::vector<std::string> variables = {passages}, temporaries;
        std::string human_position = "0", simprompt_position = "0";
        if (options.has("human")) {
            variables.push_back(string_copy(options.get("human"), "__human"));
            temporaries.push_back("__human");
            human_position = "2";
        }
        if (options.has("simprompt")) {
            variables.push_back(options.get("simprompt"));
            simprompt_position = std::to_string(variables.size());
        }
        const std::string varstart = std::to_string(variables.size() + 1);
        // CheckNewVariables: without replace, the variables generate() makes must be new.
        if (options.has("generate") && !dryrun && !options.has("replace"))
            for (const std::string suffix : {"label", "verdict", "tau", "p"})
                REQUIRE(stata.find(options.get("generate") + suffix) < 0);
        std::string found;
        if (options.has("vars")) {
            stata.set_local("llmv_taskvars", options.get("vars"));
            REQUIRE(stata.call({"varsvariables"}) == 0);
            for (const std::string& name : split_list(stata.local("llmv_taskvars_variables"))) {
                if (stata.find(name) < 0) continue;
                variables.push_back(string_copy(name, "__vars_" + name));
                temporaries.push_back(variables.back());
                found += (found.empty() ? "" : " ") + name;
            }
        }
        std::vector<std::string> words = {
            "validate",
            "text=1",
            "human=" + human_position,
            "simprompt=" + simprompt_position,
            "varstart=" + varstart,
            std::string("generate=") + (options.has("generate") && !dryrun ? "1" : "0"),
            "seed=" + seed};
        for (const std::string& setting : passed_settings(ado, "Validate"))
            if (options.has(setting)) words.push_back(setting + "=" + options.get(setting));
        words.push_back(std::string("dryrun=") + (dryrun ? "1" : "0"));
        if (options.has("batchapi")) words.push_back("batchapi=1");
        if (options.has("nowait")) words.push_back("nowait=1");
        words.push_back(std::string("continue=") + (options.has("continue") ? "1" : "0"));
        words.push_back(std::string("matrix=") + (options.has("nomatrix") ? "0" : "1"));
        words.push_back("matrixmax=11000");
        if (options.has("paper")) words.push_back("preset=paper");

        // RunPlugin's locals.
        stata.set_local("llmv_labels", options.get("labels"));
        stata.set_local("llmv_annotation", options.get("annotation"));
        stata.set_local("llmv_simulation", options.get("simulation"));
        stata.set_local("llmv_taskvars", options.get("vars"));
        stata.set_local("llmv_taskvars_found", found);
        stata.set_local("llmv_task", options.has("task") ? find_task(options.get("task")) : "");
        for (const auto& [local, option] :
             std::map<std::string, std::string>{{"llmv_provider", "provider"},
                                                {"llmv_model", "model"},
                                                {"llmv_embedding", "embedding"},
                                                {"llmv_embedding_model", "embmodel"},
                                                {"llmv_base_url", "baseurl"},
                                                {"llmv_embedding_base_url", "embbaseurl"}})
            stata.set_local(local, options.get(option));
        stata.set_local("llmv_cache",
                        options.has("nocache") ? "" : default_cache(options.get("cache")));
        const std::filesystem::path prices =
            std::filesystem::path(LLMV_NET_FOLDER) / "llmvalidate_prices.csv";
        if (std::filesystem::exists(prices)) stata.set_local("llmv_price_table", prices.string());
        // $LLMV_LAST_RUN: the run document `llmvalidate report` renders (none after a dry run).
        last_run = dryrun ? std::string() : (folder / "llmvalidate_last_run.json").string();
        stata.set_local("llmv_rundoc", last_run);

        stata.if_mask = use;
        stata.in_first = 1;
        stata.in_last = 0;
        stata.errors.clear();
        last = run_like_ado(stata, variables, words, options.get("generate"));
        for (const std::string& name : temporaries) stata.drop(name);
        INFO(stata.errors << stata.output);
        REQUIRE(last->rc == 0);
        REQUIRE(last->store_rc == 0);
        CHECK(last->scalars.at("N") ==
              static_cast<double>(std::count(use.begin(), use.end(), true)));
        if (!dryrun) CHECK(last->scalars.at("N_failed") == 0);
        if (options.has("generate") && !dryrun)
            for (const std::string suffix : {"label", "verdict"})
                CHECK(stata.find(options.get("generate") + suffix) >= 0);
    }

    void sample(const Command& command) {
        auto options = resolve_options(command, syntax_options(ado, "Sample"));
        INFO(command.text);
        const std::vector<bool> use = touse(command);
        REQUIRE(stata.find(options.get("generate")) < 0);
        std::vector<std::string> variables = {"__marker"};
        stata.add_numeric("__marker", std::vector<double>(static_cast<std::size_t>(stata.nobs), 0));
        std::vector<std::string> copies;
        if (options.has("where")) {
            stata.set_local("llmv_where", options.get("where"));
            REQUIRE(stata.call({"wherecolumns"}) == 0);
            std::string where_vars;
            for (const std::string& name : split_list(stata.local("llmv_where_columns"))) {
                if (stata.find(name) < 0) continue;
                variables.push_back(string_copy(name, "__where_" + name));
                copies.push_back(variables.back());
                where_vars += (where_vars.empty() ? "" : " ") + name;
            }
            stata.set_local("llmv_where_vars", where_vars);
        }
        stata.set_varlist(variables);
        stata.if_mask = use;
        std::vector<std::string> words = {"sample", "n=" + options.get("n")};
        if (options.has("seed")) words.push_back("seed=" + options.get("seed"));
        stata.errors.clear();
        INFO(stata.errors);
        REQUIRE(stata.call(words) == 0);
        for (const std::string& name : copies) stata.drop(name);
        stata.rename("__marker", options.get("generate"));
        const Variable& marker = stata.var(options.get("generate"));
        CHECK(std::count(marker.numbers.begin(), marker.numbers.end(), 1.0) ==
              std::stol(stata.local("llmv_sample_n")));
        CHECK(stata.local("llmv_sample_n") == options.get("n"));
        last.reset();
    }

    void power(const Command& command) {
        auto options = resolve_options(command, syntax_options(ado, "Power"));
        INFO(command.text);
        clear_locals();
        std::vector<std::string> words = {
            "power", "seed=" + (options.has("seed") ? options.get("seed") : seed_draw()),
            "dgpseed=" + (options.has("dgpseed") ? options.get("dgpseed") : seed_draw())};
        for (const std::string& setting : passed_settings(ado, "Power"))
            if (options.has(setting)) words.push_back(setting + "=" + options.get(setting));
        stata.set_local("llmv_task", find_task(options.get("task")));
        stata.set_local("llmv_truelabel", options.get("truelabel"));
        stata.set_local("llmv_topic", options.get("topic"));
        stata.if_mask.clear();
        stata.errors.clear();
        last = run_like_ado(stata, {}, words, "");
        INFO(stata.errors);
        REQUIRE(last->rc == 0);
        REQUIRE(last->store_rc == 0);
        if (options.has("replications"))
            CHECK(last->scalars.at("replications") == std::stod(options.get("replications")));
    }

    void models(const Command& command) {
        auto options = resolve_options(command, syntax_options(ado, "Models"));
        if (server) options.set("baseurl", server->root_url());
        INFO(command.text);
        clear_locals();
        stata.set_local("llmv_provider", options.get("provider"));
        stata.set_local("llmv_base_url", options.get("baseurl"));
        const std::filesystem::path prices =
            std::filesystem::path(LLMV_NET_FOLDER) / "llmvalidate_prices.csv";
        if (std::filesystem::exists(prices)) stata.set_local("llmv_price_table", prices.string());
        stata.if_mask.clear();
        stata.errors.clear();
        last = run_like_ado(
            stata, {}, {"models", std::string("quiet=") + (options.has("notable") ? "1" : "0")},
            "");
        INFO(stata.errors);
        REQUIRE(last->rc == 0);
        REQUIRE(last->store_rc == 0);
        CHECK(last->scalars.at("N") > 0);
        CHECK(last->matrices.at("catalogue").rows == static_cast<int>(last->scalars.at("N")));
    }

    // Overview: a label and a verdict variable per prefix, then a string copy of titles().
    void overview(const Command& command) {
        auto options = resolve_options(command, syntax_options(ado, "Overview"));
        INFO(command.text);
        REQUIRE(command.before.size() >= 2);
        const std::vector<std::string> stubs(command.before.begin() + 1, command.before.end());
        std::vector<std::string> variables;
        for (const std::string& stub : stubs) {
            REQUIRE(stata.var(stub + "label").kind != Kind::numeric);
            REQUIRE(stata.var(stub + "verdict").kind == Kind::numeric);
            variables.push_back(stub + "label");
            variables.push_back(stub + "verdict");
        }
        if (options.has("titles"))
            variables.push_back(string_copy(options.get("titles"), "__titles"));
        // The ado's namelist: the prefixes, and the headers unless names() gives them.
        std::string stub_list;
        for (const std::string& stub : stubs) stub_list += (stub_list.empty() ? "" : " ") + stub;
        const std::string headers = options.has("names") ? options.get("names") : stub_list;
        REQUIRE(split_list(headers).size() == stubs.size());
        stata.set_local("llmv_stubs", stub_list);
        stata.set_local("llmv_headers", headers);
        stata.set_varlist(variables);
        stata.if_mask = touse(command);
        stata.in_first = 1;
        stata.in_last = 0;
        stata.errors.clear();
        const int rc = stata.call({"overview", "columns=" + std::to_string(stubs.size()),
                                   std::string("titles=") + (options.has("titles") ? "1" : "0")});
        if (options.has("titles")) stata.drop("__titles");
        INFO(stata.errors);
        REQUIRE(rc == 0);
        CHECK(std::stol(stata.local("llmv_overview_n")) ==
              std::count(stata.if_mask.begin(), stata.if_mask.end(), true));
        CHECK(split_list(stata.local("llmv_overview_valid")).size() == stubs.size());
        last.reset();
    }

    void cache(const Command& command) {
        auto options = resolve_options(command, syntax_options(ado, "Cache"));
        INFO(command.text);
        REQUIRE(command.before.size() == 2);
        const std::string action = command.before[1];
        REQUIRE((action == "describe" || action == "clear" || action == "merge"));
        clear_locals();
        stata.set_local("llmv_cache", default_cache(command.using_file));
        stata.set_local("llmv_model", options.get("model"));
        stata.set_local("llmv_merge_from", options.get("from"));
        stata.if_mask.clear();
        stata.errors.clear();
        last = run_like_ado(stata, {}, {"cache", "action=" + action}, "");
        INFO(stata.errors);
        REQUIRE(last->rc == 0);
        REQUIRE(last->store_rc == 0);
    }

    // Report: llmvalidate report using FILE.html [, replace run(RUN.json)], relative to the
    // working directory.
    void report(const Command& command) {
        const auto options = resolve_options(command, syntax_options(ado, "Report"));
        const std::string run_document = options.has("run") ? options.get("run") : last_run;
        REQUIRE_FALSE(run_document.empty());
        REQUIRE_FALSE(command.using_file.empty());
        std::filesystem::path file(command.using_file);
        if (file.is_relative()) file = folder / file;
        stata.set_local("llmv_rundoc", run_document);
        stata.set_local("llmv_report", file.string());
        const int rc = stata.call(
            {"report", std::string("replace=") + (options.has("replace") ? "1" : "0")});
        INFO(stata.errors << stata.output);
        REQUIRE(rc == 0);
        reports.push_back(file.string());
    }

    void version() {
        REQUIRE(stata.call({"version", "quiet=0"}) == 0);
        REQUIRE_FALSE(stata.local("llmv_version").empty());
    }

    // `llmvalidate ...`: the program the ado-file's dispatch would run.
    void run(const std::string& line) {
        INFO(line);
        REQUIRE(line.rfind("llmvalidate ", 0) == 0);
        const Command command = parse_command(line.substr(std::string("llmvalidate ").size()));
        REQUIRE(!command.before.empty());
        const std::string first = command.before[0];
        if (first == "sample")
            sample(command);
        else if (first == "power")
            power(command);
        else if (first == "cache")
            cache(command);
        else if (first == "models")
            models(command);
        else if (first == "overview")
            overview(command);
        else if (first == "report")
            report(command);
        else if (first == "version")
            version();
        else if (first == "test")
            FAIL("llmvalidate test runs on the do-file's data: test_example.cpp replays it");
        else
            validate(command);
    }
};

}  // namespace host
