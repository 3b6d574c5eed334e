// The shipped tasks: the prompts folder, the task names and their aliases, loading by name.
#include <algorithm>
#include <cstdlib>
#include <dirent.h>

#include "llmvalidate/error.hpp"
#include "llmvalidate/pipeline.hpp"
#include "llmvalidate/task.hpp"
#include "pipeline/task_internal.hpp"

namespace llmv {
using namespace task_detail;

namespace {

std::string compiled_prompts_directory() {
#ifdef LLMV_PROMPTS_DIR_DEFAULT
    return LLMV_PROMPTS_DIR_DEFAULT;
#else
    // The source tree's prompts/, two levels above this file (cpp/pipeline/task_catalog.cpp).
    std::string here = __FILE__;
    for (int level = 0; level < 3; ++level) {
        const auto slash = here.find_last_of('/');
        if (slash == std::string::npos) return "";
        here.resize(slash);
    }
    return here + "/prompts";
#endif
}

}  // namespace

std::string prompts_directory(const std::string& prompts_dir) {
    std::vector<std::pair<std::string, std::string>> candidates;
    if (!prompts_dir.empty()) {
        candidates.emplace_back(prompts_dir, "the prompts_dir argument");
    } else if (const char* env = std::getenv("LLMV_PROMPTS_DIR"); env && *env) {
        candidates.emplace_back(env, "LLMV_PROMPTS_DIR");
    } else {
        candidates.emplace_back(compiled_prompts_directory(), "the built-in default");
    }
    const auto& [path, from] = candidates.front();
    if (!is_directory(path)) {
        throw Error(code::io, "the prompts folder " + in_quotes(path) + " (from " + from +
                                  ") does not exist; set LLMV_PROMPTS_DIR to the folder that "
                                  "holds the shipped tasks (prompts/ in the source tree).");
    }
    return path;
}

std::vector<std::string> list_tasks(const std::string& prompts_dir) {
    const auto dir = prompts_directory(prompts_dir);
    std::vector<std::string> names;
    if (DIR* handle = opendir(dir.c_str())) {
        while (const dirent* entry = readdir(handle)) {
            const std::string file = entry->d_name;
            const std::string suffix = ".toml";
            if (file.size() > suffix.size() &&
                file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0 &&
                is_file(dir + "/" + file)) {
                names.push_back(file.substr(0, file.size() - suffix.size()));
            }
        }
        closedir(handle);
    }
    std::sort(names.begin(), names.end());
    return names;
}

const std::vector<TaskAlias>& task_aliases() {
    static const std::vector<TaskAlias> catalog = {
        {"simple_sentiment", {"sentiment"}},
        {"detailed_sentiment", {"sentiment5"}},
        {"temporal_focus", {"temporal"}},
        {"financial_phrasebank", {"phrasebank"}},
    };
    return catalog;
}

std::string canonical_task_name(const std::string& name) {
    for (const TaskAlias& entry : task_aliases())
        for (const std::string& alias : entry.aliases)
            if (alias == name) return entry.name;
    return name;
}

std::string describe_tasks(const std::string& prompts_dir) {
    return describe_task_names(list_tasks(prompts_dir));
}

std::string describe_task_names(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) {
        text += (text.empty() ? "" : ", ") + name;
        for (const TaskAlias& entry : task_aliases())
            if (entry.name == name && !entry.aliases.empty())
                text += " (or " + join(entry.aliases, ", ") + ")";
    }
    return text;
}

std::string shipped_task_file(const std::string& name, const std::string& prompts_dir) {
    const auto dir = prompts_directory(prompts_dir);
    const auto path = dir + "/" + canonical_task_name(name) + ".toml";
    if (name.find('/') != std::string::npos || !is_file(path)) {
        throw_invalid(code::task_invalid, "task", in_quotes(name),
                      "a path to a .toml file or the name of a shipped task: " +
                          describe_tasks(dir) + " (in " + dir + ")");
    }
    return path;
}

std::string task_file(const std::string& name_or_path, const std::string& prompts_dir) {
    const bool is_path = name_or_path.find('/') != std::string::npos ||
                         (name_or_path.size() > 5 &&
                          name_or_path.compare(name_or_path.size() - 5, 5, ".toml") == 0);
    return is_path ? name_or_path : shipped_task_file(name_or_path, prompts_dir);
}

Task load_task(const std::string& name_or_path, const std::string& prompts_dir) {
    return Task::from_file(task_file(name_or_path, prompts_dir));
}

Task task_of(const pipeline::ValidationConfig& config, const std::string& source_origin) {
    if (!config.task_source.empty()) return Task::from_string(config.task_source, source_origin);
    if (config.task_path.empty()) {
        throw_invalid(code::invalid_argument, "task", "\"\"",
                      "a shipped task name (e.g. simple_sentiment) or the path of a task file");
    }
    return load_task(config.task_path);
}

}  // namespace llmv
