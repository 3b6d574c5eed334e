// llmvalidate cache [--cache PATH] [--clear-model MODEL | --clear-all | --merge FILE...] [--json]
// Inspects the response cache: entries, size, per model counts and tokens; clears by model;
// merges other caches (a sharded job's) into it.
#include <sys/stat.h>

#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/cache_merge.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/resolution.hpp"

namespace llmv::cli {

namespace {

CommandSpec cache_spec() {
    return {
        "cache",
        "[--cache PATH] [--path | --import FILE | --merge FILE... | --clear-model MODEL | "
        "--clear-all] [--json]",
        "Shows what the response cache holds: entries (answers that parsed and answers that\n"
        "did not: every paid answer is kept), file size, and per model the entries and the\n"
        "tokens they cost. --clear-model removes one model's entries (every provider).\n"
        "--merge adds the answers of other cache files (the shards' caches of batch --shard)\n"
        "to this one.\n"
        "Example: llmvalidate cache   (the per-user cache; llmvalidate cache --path prints where)",
        "  FILE...  with --merge: the cache files to add, in order",
        {
            {"--cache", "", "PATH",
             "The cache file (default $LLMV_CACHE, else the per-user cache shared with R and "
             "Stata)."},
            {"--path", "", "", "Print the cache file's path and stop."},
            {"--import", "", "FILE",
             "Add the answers of a side file (written when the cache stayed locked) to the cache."},
            {"--merge", "", "",
             "Add every answer of the cache files given after the options: every key once; a "
             "key this cache holds with another answer (two shards paid for one request) is a "
             "conflict, counted, and this cache's answer is kept."},
            {"--clear-model", "", "MODEL", "Remove every entry of MODEL."},
            {"--clear-all", "", "", "Remove every entry."},
            {"--json", "", "", "Print JSON."},
        },
        1000,
    };
}

}  // namespace

int command_cache(const std::vector<std::string>& args) {
    const CommandSpec spec = cache_spec();
    const ParsedArgs parsed = parse_args(args, spec);
    if (parsed.help) {
        print_command_help(std::cout, spec);
        return exit_ok;
    }
    const std::string path = parsed.value("--cache", pipeline::default_cache_path());
    if (parsed.has("--path")) {
        std::cout << path << "\n";
        return exit_ok;
    }
    if (!parsed.operands.empty() && !parsed.has("--merge"))
        throw_usage(spec.name, "cache files are given only with --merge (received \"" +
                                   parsed.operands.front() + "\").");
    if (parsed.has("--merge")) {
        if (parsed.operands.empty())
            throw_usage(spec.name, "--merge needs the cache files to add after the options.");
        pipeline::prepare_cache_directory(path);
        Cache cache(path);
        std::uint64_t conflicts = 0;
        for (const std::string& from : parsed.operands) {
            const CacheMergeReport merged = merge_cache(cache, from, "--merge");
            conflicts += merged.conflicts;
            std::cout << "Merged " << from << " into " << path << ": " << merged.answers
                      << " answers, " << merged.added << " new, " << merged.same
                      << " there already, " << merged.conflicts << " conflicting.\n";
        }
        if (conflicts > 0)
            std::cout << "A conflict is a request two caches answered differently (shards that "
                         "each paid for a shared pool, for example): this cache's answer is kept, "
                         "so rows computed with the other can differ from a run on this cache.\n";
        return exit_ok;
    }
    if (parsed.has("--import")) {
        pipeline::prepare_cache_directory(path);
        Cache cache(path);
        Cache::ImportReport report;
        cache.import_side_file(parsed.value("--import"), "--import", &report);
        std::cout << "Imported " << report.added << " new answers from " << parsed.value("--import")
                  << " into " << path;
        if (report.already_present > 0)
            std::cout << " (" << report.already_present << " were there already)";
        std::cout << ".\n";
        if (report.cut_last_line)
            std::cout << "The last line was cut short (the file was still being written) and was "
                         "skipped.\n";
        return exit_ok;
    }
    struct stat info;
    if (::stat(path.c_str(), &info) != 0) {
        throw_invalid(code::io, "--cache", path, "an existing cache file (runs create one)");
    }
    if (parsed.has("--clear-model") && parsed.has("--clear-all")) {
        throw_usage(spec.name, "give --clear-model or --clear-all, not both.");
    }
    Cache cache(path);
    std::uint64_t removed = 0;
    std::string action;
    if (parsed.has("--clear-model")) {
        removed = cache.clear_model(parsed.value("--clear-model"));
        action = "removed " + std::to_string(removed) + " entries of model " +
                 parsed.value("--clear-model");
    } else if (parsed.has("--clear-all")) {
        removed = cache.clear_all();
        action = "removed " + std::to_string(removed) + " entries";
    }
    const CacheStats stats = cache.stats();
    const std::vector<CacheModelCount> models = cache.models();
    if (parsed.has("--json")) {
        nlohmann::ordered_json out;
        out["path"] = path;
        out["entries"] = stats.entries;
        out["ok_entries"] = stats.ok_entries;
        out["other_entries"] = stats.other_entries;
        out["size_bytes"] = stats.size_bytes;
        if (!action.empty()) out["removed"] = removed;
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const auto& model : models) {
            rows.push_back({{"provider", model.provider},
                            {"model", model.model},
                            {"entries", model.entries},
                            {"ok_entries", model.ok_entries},
                            {"input_tokens", model.input_tokens},
                            {"output_tokens", model.output_tokens}});
        }
        out["models"] = rows;
        std::cout << out.dump(2) << "\n";
        return exit_ok;
    }
    std::ostringstream out;
    if (!action.empty()) out << "Cache " << path << ": " << action << ".\n";
    out << "Cache " << path << ": " << stats.entries << " entries (" << stats.ok_entries
        << " answers that parsed, " << stats.other_entries << " unparseable, invalid or refused), "
        << stats.size_bytes << " bytes.\n";
    for (const auto& model : models) {
        out << "  " << model.provider << " / " << model.model << ": " << model.entries
            << " entries (" << model.ok_entries << " ok), " << model.input_tokens << " input and "
            << model.output_tokens << " output tokens\n";
    }
    std::cout << out.str();
    return exit_ok;
}

}  // namespace llmv::cli
