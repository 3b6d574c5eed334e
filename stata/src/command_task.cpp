// `task`: what a task() name means, from the engine's task catalog (llmvalidate/task.hpp), so
// the ado-file keeps no list of names or aliases of its own. The ado-file passes the name the
// user typed in the local llmv_task and gets back
//
//   llmv_task_name   the shipped task's canonical name (sentiment -> simple_sentiment), or ""
//                    when the name is no shipped task or alias
//   llmv_tasks       every shipped task with its aliases, for messages:
//                    "clarity, detailed_sentiment (or sentiment5), ..."
//   llmv_task_files  every shipped task's file name (clarity.toml ...), as the .pkg installs them
//
// The ado-file then finds <llmv_task_name>.toml along the ado-path (net install puts the task
// files there). The shipped names are those of prompts/*.toml when the plugin was built
// (LLMV_STATA_SHIPPED_TASKS, set by stata/net_tasks.cmake): after net install the prompts
// folder the engine would list is not on the user's machine.
#include <algorithm>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "commands.hpp"
#include "llmvalidate/task.hpp"

#ifndef LLMV_STATA_SHIPPED_TASKS
#error \
    "LLMV_STATA_SHIPPED_TASKS (the names of prompts/*.toml, comma-separated) must be defined by the build"
#endif

namespace llmv::stata {

const std::vector<std::string>& shipped_task_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> list;
        const std::string text = LLMV_STATA_SHIPPED_TASKS;
        std::size_t start = 0;
        while (start <= text.size()) {
            const auto comma = std::min(text.find(',', start), text.size());
            if (comma > start) list.push_back(text.substr(start, comma - start));
            start = comma + 1;
        }
        std::sort(list.begin(), list.end());
        return list;
    }();
    return names;
}

int command_task(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({});
    std::string name = api.local("llmv_task").value_or("");
    const auto first = name.find_first_not_of(" \t");
    name = first == std::string::npos
               ? ""
               : name.substr(first, name.find_last_not_of(" \t") - first + 1);
    const auto& shipped = shipped_task_names();
    const std::string canonical = canonical_task_name(name);
    const bool is_shipped = std::find(shipped.begin(), shipped.end(), canonical) != shipped.end();
    api.set_local("llmv_task_name", is_shipped ? canonical : "");
    api.set_local("llmv_tasks", describe_task_names(shipped));
    std::string files;
    for (const std::string& task : shipped) files += (files.empty() ? "" : " ") + task + ".toml";
    api.set_local("llmv_task_files", files);
    return 0;
}

}  // namespace llmv::stata
