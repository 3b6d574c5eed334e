// `llmvalidate cache describe|clear|merge using file`: what the response cache holds, clearing
// it (every entry, or one model's), and adding other caches to it (a sharded job's, one per
// machine: llmvalidate/cache_merge.hpp), through the engine's llmv::Cache, as the CLI's
// `llmvalidate cache` does. The ado-file passes
//
//   locals:   llmv_cache (the file), llmv_model (clear only this model; optional),
//             llmv_merge_from (merge: the files to add, a Stata list)
//   words:    action=describe|clear|merge
//
// The file must exist to be described or cleared: a cache that is not there is an error (601),
// not a new empty file; merge creates it.
//
// `cachepath`: the default cache file, in the local llmv_cache_path: the per-user cache the
// command-line tool and R share (llmv::pipeline::default_cache_path(): $LLMV_CACHE, else R's
// user cache directory), so the ado-file keeps no default of its own.
#include <sys/stat.h>

#include <string>
#include <vector>

#include "arguments.hpp"
#include "commands.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/cache_merge.hpp"
#include "llmvalidate/resolution.hpp"
#include "results.hpp"
#include "return_codes.hpp"

namespace llmv::stata {

int command_cache(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({"action"});
    forget_pending();
    const std::string action = args.text("action", "describe");
    if (action != "describe" && action != "clear" && action != "merge")
        throw StataFailure(kRcSyntax, "llmvalidate cache: subcommand `" + action +
                                          "' is not allowed; allowed: describe, clear, merge");
    const std::string path = api.local("llmv_cache").value_or("");
    if (path.empty())
        throw StataFailure(kRcSyntax, "llmvalidate cache: give the cache file with using");
    if (action == "merge") pipeline::prepare_cache_directory(path);
    struct stat info;
    if (action != "merge" && (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)))
        throw StataFailure(kRcFileNotFound, "file " + path +
                                                " not found (llmvalidate cache needs an existing "
                                                "cache file; runs with cache() create one)");
    const std::string model = api.local("llmv_model").value_or("");
    if (action != "clear" && !model.empty())
        throw StataFailure(kRcSyntax,
                           "llmvalidate cache: option model() is allowed only with "
                           "clear; received model(" +
                               model + ") with " + action);

    Cache cache(path);
    Results results;
    if (action == "merge") {
        const std::vector<std::string> from =
            split_stata_list(api.local("llmv_merge_from").value_or(""), "from()");
        if (from.empty())
            throw StataFailure(kRcSyntax,
                               "llmvalidate cache merge needs from(): the cache files to add");
        std::uint64_t answers = 0, added = 0, same = 0, conflicts = 0;
        for (const std::string& file : from) {
            struct stat source;
            if (::stat(file.c_str(), &source) != 0 || !S_ISREG(source.st_mode))
                throw StataFailure(kRcFileNotFound,
                                   "file " + file + " not found (from() names cache files)");
            const CacheMergeReport merged = merge_cache(cache, file, "from()");
            answers += merged.answers;
            added += merged.added;
            same += merged.same;
            conflicts += merged.conflicts;
            api.display("{txt}(" + file + ": " + std::to_string(merged.answers) + " answers, " +
                        std::to_string(merged.added) + " new, " +
                        std::to_string(merged.conflicts) + " conflicting)\n");
        }
        results.scalar("merged_answers", static_cast<double>(answers));
        results.scalar("merged_added", static_cast<double>(added));
        results.scalar("merged_same", static_cast<double>(same));
        results.scalar("merged_conflicts", static_cast<double>(conflicts));
        if (conflicts > 0)
            api.display("{txt}(a conflict is a request two caches answered differently; this "
                        "cache's answer is kept)\n");
    }
    if (action == "clear") {
        const std::uint64_t removed = model.empty() ? cache.clear_all() : cache.clear_model(model);
        results.scalar("removed", static_cast<double>(removed));
        api.display("{txt}(" + std::to_string(removed) + " cache entr" +
                    (removed == 1 ? "y" : "ies") + " removed" +
                    (model.empty() ? "" : " of model " + model) + ")\n");
    }
    const CacheStats stats = cache.stats();
    const std::vector<CacheModelCount> models = cache.models();
    results.scalar("entries", static_cast<double>(stats.entries));
    results.scalar("ok_entries", static_cast<double>(stats.ok_entries));
    results.scalar("other_entries", static_cast<double>(stats.other_entries));
    results.scalar("size_bytes", static_cast<double>(stats.size_bytes));
    results.scalar("N_models", static_cast<double>(models.size()));
    results.macro("using", path);
    results.macro("action", action);
    if (!model.empty()) results.macro("model", model);

    // One row per provider and model; Stata matrix names cannot hold a model's name, so the
    // rows are numbered and r(models) lists "provider/model" in the same order.
    if (!models.empty()) {
        ResultMatrix table;
        table.key = "models";
        table.rows = static_cast<int>(models.size());
        table.cols = 4;
        table.col_names = {"entries", "ok_entries", "input_tokens", "output_tokens"};
        std::vector<std::string> names;
        for (std::size_t i = 0; i < models.size(); ++i) {
            const auto& row = models[i];
            table.row_names.push_back("model" + std::to_string(i + 1));
            names.push_back(row.provider + "/" + row.model);
            for (const std::uint64_t value :
                 {row.entries, row.ok_entries, row.input_tokens, row.output_tokens})
                table.values.push_back(static_cast<double>(value));
        }
        // The names are r(model_names): r(models) is the matrix (one name, one kind of result).
        results.macro("model_names", join_stata_list(names));
        results.matrices.push_back(std::move(table));
    }
    announce(api, std::move(results));
    return 0;
}

int command_cache_path(Api& api, int argc, char* argv[]) {
    Arguments args(argc, argv);
    args.allow_only({});
    api.set_local("llmv_cache_path", pipeline::default_cache_path());
    return 0;
}

}  // namespace llmv::stata
