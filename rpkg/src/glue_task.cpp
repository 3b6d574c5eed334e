// Tasks from R: llm_task(), a shipped task or a task file, the check of a task's variables,
// the shipped tasks' names, and a passages file.
#include "glue_calls.hpp"

#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "glue_convert.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/task.hpp"

using namespace glue;

namespace {

// An llm_task object's fields (R/task.R), from a checked task and its TOML text.
Rcpp::List task_to_r(const llmv::Task& task, const std::string& toml) {
    Rcpp::List label_instructions;
    for (const auto& [name, values] : task.label_variables()) label_instructions.push_back(named_strings(values), name);
    return Rcpp::List::create(
        Rcpp::Named("name") = task.name(), Rcpp::Named("title") = task.title(),
        Rcpp::Named("description") = task.description(), Rcpp::Named("source") = task.source(),
        Rcpp::Named("labels") = task.labels(),
        Rcpp::Named("annotation") = task.annotation_template(),
        Rcpp::Named("annotation_format") = task.annotation_answer_format(),
        Rcpp::Named("simulation") = task.simulation_template(),
        Rcpp::Named("simulation_format") = task.simulation_answer_format(),
        Rcpp::Named("label_case") = task.simulation_label_case(),
        Rcpp::Named("label_instructions") = label_instructions,
        Rcpp::Named("variables") = named_strings(task.default_variables()),
        Rcpp::Named("required") = task.required_variables(),
        Rcpp::Named("variable_descriptions") = named_strings(task.variable_descriptions()),
        Rcpp::Named("toml") = toml);
}

}  // namespace

extern "C" {

// A passages file (prompts/passages/section4.toml): one list per field, one element a passage.
SEXP llmv_load_passages(SEXP path_) {
    BEGIN_RCPP
    const std::string path = Rcpp::as<std::string>(path_);
    return guarded([&]() -> Rcpp::RObject {
        const std::vector<llmv::TaskPassage> passages = llmv::load_passages(path);
        const R_xlen_t count = static_cast<R_xlen_t>(passages.size());
        Rcpp::CharacterVector id(count), title(count), source(count), text(count);
        Rcpp::List variables(count), simulation(count);
        for (R_xlen_t i = 0; i < count; ++i) {
            const llmv::TaskPassage& passage = passages[static_cast<std::size_t>(i)];
            id[i] = passage.id;
            title[i] = passage.title;
            source[i] = passage.source;
            text[i] = passage.text;
            variables[i] = named_strings(passage.variables);
            simulation[i] = named_strings(passage.simulation_templates);
        }
        return Rcpp::List::create(Rcpp::Named("id") = id, Rcpp::Named("title") = title,
                                  Rcpp::Named("source") = source, Rcpp::Named("text") = text,
                                  Rcpp::Named("variables") = variables,
                                  Rcpp::Named("simulation") = simulation);
    });
    END_RCPP
}

// llm_task(): the parts (names as in R), checked by the engine's task parser; an error names
// the R argument of the field at fault.
SEXP llmv_task_build(SEXP parts_) {
    BEGIN_RCPP
    const Rcpp::List parts(parts_);
    return guarded([&]() -> Rcpp::RObject {
        llmv::TaskSpec spec;
        // Absent and NULL parts alike are unset.
        const auto part = [&](const char* name) -> SEXP {
            return parts.containsElementNamed(name) ? SEXP(parts[name]) : R_NilValue;
        };
        spec.name = list_get<std::string>(parts, "name", "custom");
        spec.title = list_get<std::string>(parts, "title", "");
        spec.description = list_get<std::string>(parts, "description", "");
        spec.source = list_get<std::string>(parts, "source", "");
        if (!Rf_isNull(part("labels"))) spec.labels = as_strings(Rcpp::CharacterVector(part("labels")));
        spec.annotation = list_get<std::string>(parts, "annotation", "");
        spec.simulation = list_get<std::string>(parts, "simulation", "");
        if (!Rf_isNull(part("annotation_format")))
            spec.annotation_format = Rcpp::as<std::string>(part("annotation_format"));
        if (!Rf_isNull(part("simulation_format")))
            spec.simulation_format = Rcpp::as<std::string>(part("simulation_format"));
        spec.label_case = list_get<std::string>(parts, "label_case", "");
        spec.variables = as_string_map(part("variables"));
        spec.variable_descriptions = as_string_map(part("variable_descriptions"));
        if (Rf_length(part("required")) > 0)
            spec.required_variables = as_strings(Rcpp::CharacterVector(part("required")));
        if (Rf_length(part("label_instructions")) > 0) {
            const Rcpp::List per_label(part("label_instructions"));
            const auto names = as_strings(per_label.names());
            for (R_xlen_t i = 0; i < per_label.size(); ++i) spec.label_variables[names[i]] = as_string_map(per_label[i]);
        }
        const std::map<std::string, std::string> argument_names = {
            {"name", "`name`"}, {"labels", "`labels`"},
            {"annotation.template", "`annotation`"}, {"annotation.answer_format", "`annotation_format`"},
            {"simulation.template", "`simulation`"}, {"simulation.answer_format", "`simulation_format`"},
            {"simulation.label_case", "`label_case`"}, {"label_variables", "`label_instructions`"},
            {"variables", "`variables`"}, {"required_variables", "`required`"},
            {"variable_descriptions", "`variable_descriptions`"},
        };
        // The task file's advice, in llm_task()'s terms.
        const llmv::Task task = llmv::task_from_spec(
            spec, "built by llm_task()", argument_names,
            "declare it in `variables` (with a default) or in `required`");
        return task_to_r(task, llmv::task_toml(spec));
    });
    END_RCPP
}

// A shipped task (name or alias, in `prompts_dir`) or a task file, with its TOML text.
SEXP llmv_task_read(SEXP name_, SEXP prompts_dir_) {
    BEGIN_RCPP
    const std::string name = Rcpp::as<std::string>(name_);
    const std::string prompts_dir = Rcpp::as<std::string>(prompts_dir_);
    return guarded([&]() -> Rcpp::RObject {
        const std::string path = llmv::task_file(name, prompts_dir);
        std::ifstream in(path, std::ios::binary);
        if (!in) llmv::throw_invalid(llmv::code::task_invalid, "task", "\"" + name + "\"", "a task file that exists");
        const std::string toml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        Rcpp::List out = task_to_r(llmv::Task::from_string(toml, path), toml);
        out["file"] = path;
        return out;
    });
    END_RCPP
}

// Every variable the task requires has a value in config$variables (the engine's message).
SEXP llmv_task_check_variables(SEXP config_) {
    BEGIN_RCPP
    const Rcpp::List list(config_);
    return guarded([&]() -> Rcpp::RObject {
        const pipeline::ValidationConfig config = as_config(list);
        const llmv::Task task = llmv::task_of(config, "built by llm_task()");
        task.render_annotation("", config.variables);  // throws when a required one is missing
        return R_NilValue;
    });
    END_RCPP
}

// "clarity, detailed_sentiment (or sentiment5), ...": the shipped tasks for messages.
SEXP llmv_describe_tasks(SEXP prompts_dir_) {
    BEGIN_RCPP
    const std::string prompts_dir = Rcpp::as<std::string>(prompts_dir_);
    return guarded([&]() -> Rcpp::RObject { return Rcpp::wrap(llmv::describe_tasks(prompts_dir)); });
    END_RCPP
}

// A shipped task's file from its canonical name or an alias, in `prompts_dir`.
SEXP llmv_task_file(SEXP name_, SEXP prompts_dir_) {
    BEGIN_RCPP
    const std::string name = Rcpp::as<std::string>(name_);
    const std::string prompts_dir = Rcpp::as<std::string>(prompts_dir_);
    return guarded([&]() -> Rcpp::RObject {
        const std::string path = prompts_dir + "/" + llmv::canonical_task_name(name) + ".toml";
        if (name.find('/') != std::string::npos || !std::ifstream(path).good())
            llmv::throw_invalid(llmv::code::task_invalid, "task", "\"" + name + "\"",
                                "a task file that exists or a shipped task: " +
                                    llmv::describe_tasks(prompts_dir));
        return Rcpp::wrap(path);
    });
    END_RCPP
}

}  // extern "C"
