// merge_cache (llmvalidate/cache_merge.hpp): one cache's answers into another through SQLite's
// ATTACH, in one transaction.
#include "llmvalidate/cache_merge.hpp"

#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>

#include "cache/cache_impl.hpp"
#include "llmvalidate/error.hpp"

namespace llmv {

using namespace cache_detail;

namespace {

constexpr const char* columns =
    "key, provider, model, draw_index, attempt, status, body, text, response_model, "
    "input_tokens, output_tokens, created_unix, vector";


}  // namespace

CacheMergeReport merge_cache(Cache& into, const std::string& from, const std::string& setting) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(from, error))
        throw_invalid(code::io, setting, from, "an existing cache file (a shard's)");
    auto& impl = CacheAccess::impl(into);
    const auto count = [&impl](const char* sql) {
        Statement statement(impl.db, sql, impl.path);
        statement.step();
        return static_cast<std::uint64_t>(statement.integer(0));
    };
    if (std::filesystem::equivalent(from, impl.path, error))
        throw_invalid(code::invalid_argument, setting, from,
                      "another cache than the one merged into (" + impl.path + ")");
    {
        // Opened as a cache first: another program's SQLite file is refused untouched, and a
        // cache of an older format is brought to this one.
        Cache source(from);
    }
    CacheMergeReport report;
    report.from = from;
    std::lock_guard<std::mutex> lock(impl.mutex);
    {
        Statement attach(impl.db, "ATTACH DATABASE ?1 AS merged_from", impl.path);
        attach.bind(1, from);
        attach.step();
    }
    try {
        impl.write_transaction([&] {
            report.answers = count("SELECT COUNT(*) FROM merged_from.responses");
            report.conflicts = count(
                "SELECT COUNT(*) FROM merged_from.responses o JOIN main.responses m ON m.key = "
                "o.key WHERE m.status IS NOT o.status OR m.body IS NOT o.body OR m.text IS NOT "
                "o.text OR m.vector IS NOT o.vector");
            report.same = count("SELECT COUNT(*) FROM merged_from.responses o JOIN "
                                "main.responses m ON m.key = o.key") -
                          report.conflicts;
            impl.exec((std::string("INSERT OR IGNORE INTO main.responses(") + columns +
                       ") SELECT " + columns + " FROM merged_from.responses")
                          .c_str());
            report.added = report.answers - report.same - report.conflicts;
        });
    } catch (...) {
        impl.exec("DETACH DATABASE merged_from");
        throw;
    }
    impl.exec("DETACH DATABASE merged_from");
    return report;
}

}  // namespace llmv
