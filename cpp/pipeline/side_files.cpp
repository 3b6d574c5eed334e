// A cache's side files: where they are written and how the next run imports them
// (side_files.hpp).
#include "pipeline/side_files.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include "core/sha256.hpp"
#include "llmvalidate/cache.hpp"
#include "llmvalidate/error.hpp"
#include "llmvalidate/resolution.hpp"

namespace llmv::pipeline {

namespace fs = std::filesystem;

std::vector<std::string> elsewhere_folders(const std::string& cache_path) {
    std::vector<std::string> folders;
    std::error_code ignored;
    const fs::path own =
        fs::weakly_canonical(fs::absolute(cache_path, ignored).parent_path(), ignored);
    const auto add = [&](const std::string& folder) {
        if (folder.empty()) return;
        const fs::path canonical = fs::weakly_canonical(fs::path(folder), ignored);
        if (canonical == own) return;
        for (const std::string& known : folders)
            if (fs::weakly_canonical(fs::path(known), ignored) == canonical) return;
        folders.push_back(folder);
    };
    for (const char* name : {"TMPDIR", "TEMP", "TMP"}) {
        const char* value = std::getenv(name);
        if (value && *value) add(value);
    }
#ifndef _WIN32
    add("/tmp");
#endif
    const fs::path user_cache = fs::path(default_cache_path()).parent_path();
    fs::create_directories(user_cache, ignored);
    add(user_cache.string());
    return folders;
}

std::string elsewhere_name(const std::string& cache_path, const std::string& suffix) {
    std::error_code ignored;
    const std::string absolute = fs::absolute(cache_path, ignored).string();
    return fs::path(cache_path).filename().string() + "-" + sha256_hex(absolute).substr(0, 12) +
           suffix;
}

bool write_file_whole(const std::string& path, const std::string& text) {
    const std::string part = path + ".part";
    bool ok = false;
    {
        std::ofstream out(part, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        ok = static_cast<bool>(out);
        out.close();
        ok = ok && !out.fail();
    }
    ok = ok && std::rename(part.c_str(), path.c_str()) == 0;
    if (!ok) std::remove(part.c_str());  // no empty or cut file is left behind
    return ok;
}

std::vector<SideFileImport> import_side_files(const std::string& cache_path, int busy_timeout_ms,
                                              const std::atomic<bool>* cancel) {
    std::vector<SideFileImport> imports;
    if (cache_path.empty() || cache_path == ":memory:") return imports;
    std::error_code ignored;
    std::vector<std::pair<fs::path, std::string>> places = {
        {fs::absolute(cache_path, ignored).parent_path(),
         fs::path(cache_path).filename().string() + side_file_infix}};
    for (const std::string& folder : elsewhere_folders(cache_path))
        places.emplace_back(folder, elsewhere_name(cache_path, side_file_infix));
    std::vector<std::string> found;
    for (const auto& [folder, prefix] : places) {
        fs::directory_iterator entries(folder, ignored), end;
        for (; !ignored && entries != end; entries.increment(ignored)) {
            const std::string name = entries->path().filename().string();
            const std::string suffix = ".jsonl";
            if (name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 &&
                name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
                found.push_back(entries->path().string());
        }
        ignored.clear();
    }
    if (found.empty()) return imports;
    std::unique_ptr<Cache> cache;
    for (const std::string& path : found) {
        SideFileImport import;
        import.path = path;
        try {
            if (!cache) {
                cache = std::make_unique<Cache>(cache_path, busy_timeout_ms);
                if (cancel) cache->end_waits_on(cancel);
            }
            Cache::ImportReport report;
            cache->import_side_file(path, "side file", &report);
            import.added = report.added;
            import.answers = report.added + report.already_present;
            std::remove(path.c_str());
        } catch (const std::exception& error) {
            import.error = error.what();  // left in place: a later run tries again
        }
        imports.push_back(std::move(import));
    }
    return imports;
}

}  // namespace llmv::pipeline
