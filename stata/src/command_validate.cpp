// `llmvalidate varname, task(...)`: validates the passages of a string variable (str# or strL)
// through the engine's pipeline (cpp/include/llmvalidate/pipeline.hpp). The ado-file passes
//
//   varlist:  passage  [human]  [simprompt]  [a string copy of each variable of vars(), from
//             varstart=]
//   locals:   llmv_task (a file path), or llmv_labels, llmv_annotation, llmv_simulation (a task
//             from options); llmv_taskvars (the text of vars()), llmv_taskvars_found (its variables
//             that exist, in varlist order); llmv_provider, llmv_model, llmv_embedding,
//             llmv_embedding_model, llmv_base_url, llmv_embedding_base_url, llmv_cache,
//             llmv_apikey (the chat provider's key only; never shown),
//             llmv_generations (a file to write the run's generations to, as CSV: saving())
//   words:    text=1 human=0|2 simprompt=0|k generate=0|1 m= n= repeats= alpha= threshold= seed=
//             permutations= vmethod= smethod= rule= concurrency= maxretries= dryrun=0|1
//             batchapi=0|1
//             continue=0|1 matrix=0|1 matrixmax= varstart=
//
// `varsvariables` tells the ado which variables vars() names (local llmv_taskvars_variables), so
// that it passes their string copies.
//
// A task variable that vars() does not give is refused before any call. When no passage could
// be validated (a closed port, a refused key), the command fails with the rc of the first
// failure's category, as `llmvalidate batch` exits nonzero; continue=1 (the option continue)
// stores the results anyway, every one missing.
#include "commands.hpp"
#include "return_codes.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/interrupt.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/record_lists.hpp"
#include "llmvalidate/resolution.hpp"
#include "llmvalidate/settings.hpp"
#include "llmvalidate/task.hpp"
#include "messages.hpp"
#include "record_stata.hpp"
#include "results.hpp"
#include "test_results.hpp"
#include "validate_outputs.hpp"
#include "validation_settings.hpp"

namespace llmv::stata {

namespace {
std::string local_or(const Api& api, const std::string& name, const std::string& fallback) {
    const auto value = api.local(name);
    return value && !value->empty() ? *value : fallback;
}
}  // namespace

namespace {
// vars(): NAME=VARIABLE (a value per passage, from a variable) or NAME="text" (one value for
// every passage), separated by white space.
struct TaskVariableSpec {
    std::map<std::string, std::string> constants;                  // name -> value
    std::vector<std::pair<std::string, std::string>> per_passage;  // name -> variable
};

TaskVariableSpec parse_vars(const std::string& text) {
    TaskVariableSpec spec;
    const auto fail = [&](const std::string& why) {
        throw StataFailure(kRcSyntax,
                           "option vars() must be NAME=VARIABLE (a value per passage) or "
                           "NAME=\"text\" (one value for every passage) pairs, e.g. "
                           "vars(topic=topicvar genre=\"tweets\"); received `" +
                               text + "' (" + why + ")");
    };
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    auto name_char = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
               c == '_';
    };
    std::set<std::string> seen;
    std::size_t i = 0;
    const std::size_t n = text.size();
    while (true) {
        while (i < n && space(text[i])) ++i;
        if (i >= n) break;
        std::size_t start = i;
        while (i < n && name_char(text[i])) ++i;
        const std::string name = text.substr(start, i - start);
        if (name.empty()) fail("a name must come first");
        while (i < n && space(text[i])) ++i;
        if (i >= n || text[i] != '=') fail(name + " has no =");
        ++i;
        while (i < n && space(text[i])) ++i;
        if (!seen.insert(name).second) fail(name + " is given twice");
        if (text.compare(i, 2, "`\"") == 0) {
            const auto close = text.find("\"'", i + 2);
            if (close == std::string::npos) fail("unbalanced compound quotes");
            spec.constants[name] = text.substr(i + 2, close - i - 2);
            i = close + 2;
        } else if (i < n && text[i] == '"') {
            const auto close = text.find('"', i + 1);
            if (close == std::string::npos) fail("unbalanced quotes");
            spec.constants[name] = text.substr(i + 1, close - i - 1);
            i = close + 1;
        } else {
            start = i;
            while (i < n && name_char(text[i])) ++i;
            if (i == start) fail(name + "= has no variable or quoted text");
            spec.per_passage.emplace_back(name, text.substr(start, i - start));
        }
    }
    return spec;
}

// labels(), annotation(), simulation(): the task as TOML, checked by the engine's task parser
// (the CLI's --labels, --annotation-prompt, --simulation-prompt and R's llm_task() do the
// same); the variables of vars() become the task's (constants as defaults, variables as
// required), as the CLI does with --vars and --variable-columns.
std::string task_from_options(const Api& api, const TaskVariableSpec& vars) {
    const std::string labels = local_or(api, "llmv_labels", "");
    const std::string annotation = local_or(api, "llmv_annotation", "");
    const std::string simulation = local_or(api, "llmv_simulation", "");
    if (labels.empty() || annotation.empty() || simulation.empty()) {
        std::string missing;
        if (labels.empty()) missing += "labels()";
        if (annotation.empty())
            missing += std::string(missing.empty() ? "" : ", ") + "annotation()";
        if (simulation.empty())
            missing += std::string(missing.empty() ? "" : ", ") + "simulation()";
        throw StataFailure(kRcSyntax,
                           "llmvalidate: a task from options needs labels(), annotation() and "
                           "simulation() together; missing " +
                               missing + " (or give task() instead)");
    }
    TaskSpec spec;
    spec.labels = split_stata_list(labels, "option labels()");
    spec.annotation = annotation;
    spec.simulation = simulation;
    spec.variables = vars.constants;
    for (const auto& entry : vars.per_passage) spec.required_variables.push_back(entry.first);
    const std::map<std::string, std::string> option_names = {
        {"labels", "`labels()`"},
        {"annotation.template", "`annotation()`"},
        {"simulation.template", "`simulation()`"},
        {"variables", "`vars()`"},
        {"required_variables", "`vars()`"},
    };
    try {
        task_from_spec(spec, "from options", option_names,
                       "give it with vars(NAME=variable) or vars(NAME=\"text\")");
    } catch (const Error& error) {
        throw StataFailure(kRcSyntax, std::string("llmvalidate: ") + error.what());
    }
    return task_toml(spec);
}

// Before any call: every name of vars() is a variable of the task, and every variable the
// task requires is given (a general task's genre), with the task's own description of it.
void check_task_variables(const Task& task, const TaskVariableSpec& vars) {
    std::vector<std::string> given;
    for (const auto& entry : vars.constants) given.push_back(entry.first);
    for (const auto& entry : vars.per_passage) given.push_back(entry.first);
    for (const std::string& name : given) {
        if (task.accepts_variable(name)) continue;
        std::string accepted;
        for (const auto& entry : task.default_variables())
            accepted += (accepted.empty() ? "" : ", ") + entry.first;
        for (const auto& entry : task.required_variables())
            accepted += (accepted.empty() ? "" : ", ") + entry;
        throw StataFailure(
            kRcSyntax,
            "option vars() must name variables of task " + task.name() + "; received " + name +
                "; allowed: " + (accepted.empty() ? "none (the task has no variables)" : accepted));
    }
    for (const std::string& name : task.required_variables()) {
        if (std::find(given.begin(), given.end(), name) != given.end()) continue;
        const auto description = task.variable_descriptions().find(name);
        throw StataFailure(kRcSyntax,
                           "llmvalidate: task " + task.name() + " requires the variable " + name +
                               ", which vars() does not give; give it with vars(" + name +
                               "=\"...\") (one "
                               "value for every passage) or vars(" +
                               name + "=varname) (a value per passage). " +
                               (description == task.variable_descriptions().end()
                                    ? std::string()
                                    : name + ": " + description->second + " ") +
                               "No call was made.");
    }
}
}  // namespace

int command_vars_variables(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({});
    std::vector<std::string> variables;
    for (const auto& entry : parse_vars(local_or(api, "llmv_taskvars", "")).per_passage)
        variables.push_back(entry.second);
    api.set_local("llmv_taskvars_variables", join_stata_list(variables));
    return 0;
}

int command_validate(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only(
        accepted_words({"text", "human", "generate", "dryrun", "matrix", "matrixmax", "preset",
                        "continue", "varstart", "simprompt", "batchapi", "nowait"},
                       Offered::validation));
    forget_pending();
    const int text_var = args.integer("text", 1);
    const int human_var = args.integer("human", 0);
    // simprompt(): a simulation prompt per passage (the paper's Section 4 passages each have
    // one); an empty value keeps the task's.
    const int simulation_var = args.integer("simprompt", 0);
    if (text_var < 1 || text_var > api.variables() || !api.is_string(text_var))
        throw StataFailure(109,
                           "llmvalidate: the passages must be a string variable (str# or strL)");
    if (human_var != 0 && (human_var > api.variables() || !api.is_string(human_var)))
        throw StataFailure(109, "llmvalidate: human() must be a string variable");
    if (simulation_var != 0 && (simulation_var > api.variables() || !api.is_string(simulation_var)))
        throw StataFailure(109,
                           "llmvalidate: simprompt() must be a string variable holding a "
                           "simulation prompt per passage");

    // vars(): the names, and the variables of the varlist (from position varstart=) that hold
    // per-passage values, in the order of llmv_taskvars_found.
    const TaskVariableSpec vars = parse_vars(local_or(api, "llmv_taskvars", ""));
    const auto found = split_stata_list(local_or(api, "llmv_taskvars_found", ""), "option vars()");
    const int var_start = args.integer("varstart", 0);
    std::vector<std::pair<std::string, int>> variable_positions;  // task variable -> position
    for (const auto& [name, variable] : vars.per_passage) {
        const auto at = std::find(found.begin(), found.end(), variable);
        if (at == found.end())
            throw StataFailure(kRcSyntax,
                               "option vars() must name variables of the data after "
                               "NAME=; received " +
                                   name + "=" + variable + ", and " + variable +
                                   " is not a variable (quote a text: " + name + "=\"" + variable +
                                   "\")");
        const int position = var_start + static_cast<int>(at - found.begin());
        if (var_start < 1 || position > api.variables() || !api.is_string(position))
            throw StataFailure(kRcSyntax,
                               "llmvalidate plugin: vars() variables must be passed as "
                               "string variables from varstart=");
        variable_positions.emplace_back(name, position);
    }

    pipeline::ValidationConfig config;
    config.messages_for = settings::FrontEnd::stata;
    config.task_path = local_or(api, "llmv_task", "");
    const bool parts = !local_or(api, "llmv_labels", "").empty() ||
                       !local_or(api, "llmv_annotation", "").empty() ||
                       !local_or(api, "llmv_simulation", "").empty();
    if (!config.task_path.empty() && parts)
        throw StataFailure(kRcSyntax,
                           "llmvalidate: give either task() or labels(), annotation() and "
                           "simulation(), not both; received task(" +
                               config.task_path + ") and a task from options");
    if (parts) config.task_source = task_from_options(api, vars);
    if (config.task_path.empty() && config.task_source.empty())
        throw StataFailure(kRcSyntax,
                           "llmvalidate: option task() is required (or labels(), "
                           "annotation() and simulation() together)");
    config.variables = vars.constants;
    const Task task = task_of(config, "from options");
    check_task_variables(task, vars);
    config.provider = local_or(api, "llmv_provider", config.provider);
    config.model = local_or(api, "llmv_model", "");
    config.embedding_provider = local_or(api, "llmv_embedding", "");
    config.embedding_model = local_or(api, "llmv_embedding_model", "");
    config.base_url = local_or(api, "llmv_base_url", "");
    config.embedding_base_url = local_or(api, "llmv_embedding_base_url", "");
    config.cache_path = local_or(api, "llmv_cache", "");
    config.api_key = chat_key(api);
    // The price table net install put on the ado-path (the ado's findfile), unless the user
    // chose one with LLMV_PRICE_TABLE: the build's prompts/ is not on a user's machine.
    if (const char* chosen = std::getenv("LLMV_PRICE_TABLE"); !(chosen && *chosen))
        config.price_table = local_or(api, "llmv_price_table", "");
    // paper: a preset first, so that options given beside it win.
    if (args.has("preset"))
        settings::apply_preset(config, args.text("preset", ""), settings::FrontEnd::stata);
    read_validation_settings(args, config);
    // The route (pipeline::run reads these): dryrun, batchapi, and nowait (submit, or poll
    // once, and return; the same command collects later).
    config.dry_run = args.integer("dryrun", 0) != 0;
    config.batch_api = args.integer("batchapi", 0) != 0;
    config.wait = args.integer("nowait", 0) == 0;
    const bool generate = args.integer("generate", 0) != 0;
    settings::check(config, settings::FrontEnd::stata);
    const std::string generations_path = local_or(api, "llmv_generations", "");
    config.keep_texts = !generations_path.empty();
    pipeline::check_config(config);
    // The models that will run, defaults included, so that r(model) and r(embedding_model)
    // name them even when model() and embmodel() were not given.
    const pipeline::ResolvedProviders resolved = pipeline::resolve_providers(config);
    pipeline::apply_resolution(config, resolved);

    // The passage variable's name (RunPlugin's varnames()), for the messages.
    const auto names = split_stata_list(local_or(api, "llmv_varnames", "varname"), "varnames()");
    const std::string passage_name = names.empty() ? "varname" : names.front();
    std::vector<pipeline::PassageInput> inputs;
    std::vector<int> input_obs;
    for (int obs = api.in_first(); obs <= api.in_last(); ++obs) {
        if (!api.selected(obs)) continue;
        pipeline::PassageInput input;
        input.text = api.string(text_var, obs);
        input.id = std::to_string(obs);
        if (human_var != 0) input.human_label = api.string(human_var, obs);
        for (const auto& [name, position] : variable_positions) {
            std::string value = api.string(position, obs);
            const auto variable =
                std::find_if(vars.per_passage.begin(), vars.per_passage.end(),
                             [&name = name](const auto& entry) { return entry.first == name; })
                    ->second;
            // An empty value would put an empty topic into the prompt: refused as an empty
            // passage is.
            if (value.find_first_not_of(" \t\r\n") == std::string::npos)
                throw StataFailure(kRcData, "llmvalidate: observation " + std::to_string(obs) +
                                                ": vars(" + name + "=" + variable +
                                                ") is empty or only white "
                                                "space; every passage needs a value of " +
                                                name +
                                                " (leave such "
                                                "observations out with if, e.g. if strtrim(" +
                                                variable + ") != \"\"). No call was made.");
            input.variables[name] = std::move(value);
        }
        if (simulation_var != 0) input.simulation_template = api.string(simulation_var, obs);
        // A simulation prompt the task cannot use is the simprompt() variable's fault, not the
        // task file's: checked here, before any call, as the engine would check it later.
        if (input.simulation_template.find_first_not_of(" \t\r\n") != std::string::npos) {
            try {
                (void)task.with_simulation_template(input.simulation_template);
            } catch (const Error& error) {
                // The body alone: the option and observation say where, not the task file
                // (the engine names the template "the simulation prompt" here).
                throw StataFailure(kRcData, "option simprompt(): observation " +
                                                std::to_string(obs) + ": " + error.body() +
                                                " No call was made.");
            }
        }
        // An empty or blank passage stops the command before any call (the engine's check; the
        // ado-file leaves out the empty ones, so this is a blank one), in Stata's words only.
        try {
            pipeline::check_passage_text(input, inputs.size());
        } catch (const Error&) {
            throw StataFailure(kRcData, "llmvalidate: observation " + std::to_string(obs) +
                                            ": the passage is empty or only white space; every "
                                            "passage needs text (leave such observations out with "
                                            "if, e.g. if strtrim(" +
                                            passage_name + ") != \"\"). No call was made.");
        }
        inputs.push_back(std::move(input));
        input_obs.push_back(obs);
    }
    if (inputs.empty()) throw StataFailure(kRcNoObservations, "no observations");

    // Where the answers are kept, as the CLI and R say it (the run warns of a paid run without
    // a cache, before its first call). The simulated provider pays nothing and caches nothing.
    if (config.provider != "simulated")
        api.text("Cache: " +
                 (config.cache_path.empty() ? std::string("none (nocache)") : config.cache_path) +
                 "\n");
    // Every warning of the run is shown as it comes and kept for r(warnings).
    ProgressDots progress(api);
    // Every wait of the engine (batch polls, back-off) reads Break at least once a second.
    const ScopedInterruptCheck break_check([&api] { return api.poll(); });
    const pipeline::RunOutcome ran = pipeline::run(config, inputs, progress.sink());
    Results results;
    if (ran.estimate) {
        progress.finish(false);
        const pipeline::DryRunReport& report = *ran.estimate;
        // The report's fields with a Stata name (record_lists.hpp): N, calls, cached_calls,
        // embedded_texts, the estimated tokens and the note; its cost below.
        const records::StataSingle fields = records::stata_single(records::stata_cells(report));
        for (const auto& [name, value] : fields.scalars) results.scalar(name, value);
        for (const auto& [name, text] : fields.macros) results.macro(name, text);
        // Dollars only when a price table was found (LLMV_PRICE_TABLE, or the build's prompts/).
        if (!report.cost.table.empty()) {
            // A total missing a model's price is unknown: missing, not the priced part's sum.
            const bool priced = report.cost.complete;
            results.scalar("dollars", priced ? report.cost.dollars : api.missing_value());
            results.scalar("batch_dollars",
                           priced ? report.cost.batch_dollars : api.missing_value());
            results.macro("price_table", report.cost.table);
        }
        if (!report.cost.note.empty()) results.macro("price_note", report.cost.note);
        results.macro("dryrun", "yes");
        results.macro("warnings", progress.warnings());
        announce(api, std::move(results));
        return 0;
    }
    if (ran.status == pipeline::RunStatus::waiting) {
        progress.finish(false);
        api.text(
            "Batch API: provider batches are in progress; run the same command again to "
            "collect the answers (nothing is submitted twice).\n");
        Results waiting;
        waiting.scalar("waiting", 1);
        std::string ids;
        for (const std::string& id : ran.batch_report->submitted)
            ids += (ids.empty() ? "" : " ") + id;
        waiting.macro("batches", ids);
        waiting.macro("cache", config.cache_path);
        announce(api, std::move(waiting));
        return 0;
    }
    const pipeline::BatchResult& batch = ran.result;
    progress.finish(ran.status == pipeline::RunStatus::cancelled);

    if (!generations_path.empty()) write_generations(generations_path, batch);
    // The run document (llmvalidate/report.hpp) for `llmvalidate report`: the ado names the
    // file (the last run's, and one beside saving()'s dataset).
    const std::string document_path = local_or(api, "llmv_rundoc", "");
    if (!document_path.empty())
        write_run_document(document_path, config, inputs, ran, progress.run_warnings());

    std::vector<Outcome> outcomes;
    std::vector<std::string> labels;
    const pipeline::PassageResult* first_failure = nullptr;
    for (std::size_t k = 0; k < batch.passages.size(); ++k) {
        const auto& passage = batch.passages[k];
        const int obs = input_obs[passage.index];
        if (labels.empty()) labels = passage.label_set;
        if (passage.ok) {
            outcomes.push_back({obs, passage.label, &passage.tests, ""});
            continue;
        }
        outcomes.push_back({obs, passage.label, nullptr, validate_passage_message(passage)});
        if (ran.first_failure && passage.index == ran.first_failure->index)
            first_failure = &passage;
    }
    // The engine's failure policy: a run whose every passage failed stores nothing (unless
    // option continue asks for the missing results).
    if (ran.status == pipeline::RunStatus::failed && first_failure != nullptr &&
        args.integer("continue", 0) == 0) {
        for (const auto& outcome : outcomes)
            api.text("observation " + std::to_string(outcome.obs) + ": " + outcome.error + "\n");
        std::string first = validate_passage_message(*first_failure);
        if (!first.empty() && first.back() == '.') first.pop_back();
        throw StataFailure(
            return_code_for(first_failure->error_code),
            "llmvalidate: no passage could be validated: all " + std::to_string(outcomes.size()) +
                " failed (the first, observation " +
                std::to_string(input_obs[first_failure->index]) + ": " + first +
                "). Nothing was stored; " +
                (config.cache_path.empty()
                     ? std::string("no cache was used (nocache), so a re-run pays again. ")
                     : "any answer received is kept in the cache " + config.cache_path + ". ") +
                "Option continue stores the results anyway (all missing), with r(N_failed).");
    }
    fill_results(results, outcomes, config.tests, labels, generate, true);
    add_passage_summary(results, batch.summary, generate);
    // r(results) has a row per passage: past Stata's matrix limit (matrixmax=, from the ado)
    // it could not be created after the whole run, so it is left out; nomatrix leaves it out.
    const bool want_matrix = args.integer("matrix", 1) != 0;
    const int matrix_max = args.integer("matrixmax", 0);
    const bool too_many = matrix_max > 0 && outcomes.size() > static_cast<std::size_t>(matrix_max);
    if (!want_matrix || too_many) {
        auto& matrices = results.matrices;
        matrices.erase(std::remove_if(matrices.begin(), matrices.end(),
                                      [](const ResultMatrix& m) { return m.key == "results"; }),
                       matrices.end());
        if (want_matrix)
            api.display("{txt}(r(results) left out: " + std::to_string(outcomes.size()) +
                        " passages exceed the matrix limit of " + std::to_string(matrix_max) +
                        " rows; use generate() for per-passage results)\n");
    }
    results.scalar("calls", static_cast<double>(batch.calls.chat_calls));
    results.scalar("cache_hits", static_cast<double>(batch.calls.cache_hits));
    results.macro("provider", config.provider);
    results.macro("model", resolved.chat_model);
    results.macro("embedding_provider", resolved.embedding_provider);
    results.macro("embedding_model", resolved.embedding_model);
    results.macro("cache", config.cache_path);
    results.macro("synthetic", batch.synthetic ? "yes" : "no");
    results.macro("warnings", progress.warnings());
    for (const auto& outcome : outcomes)
        if (outcome.output == nullptr)
            api.text("observation " + std::to_string(outcome.obs) + ": " + outcome.error + "\n");
    announce(api, std::move(results));
    return 0;
}

}  // namespace llmv::stata
