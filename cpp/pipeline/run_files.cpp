// Files a run keeps beside the cache (run_files.hpp).
#include "pipeline/run_files.hpp"

#include <cerrno>
#include <filesystem>
#include <system_error>

#ifdef _WIN32
#include <process.h>
#else
#include <signal.h>
#include <unistd.h>
#endif

namespace llmv::pipeline {

namespace fs = std::filesystem;

std::string process_id() {
#ifdef _WIN32
    return std::to_string(::_getpid());
#else
    return std::to_string(::getpid());
#endif
}

bool process_may_run(long pid) {
#ifdef _WIN32
    (void)pid;
    return true;
#else
    if (pid <= 0) return true;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
#endif
}

std::size_t remove_files_of_ended_runs(const std::string& cache_path,
                                       const std::vector<std::string>& infixes) {
    std::error_code ignored;
    const fs::path folder = fs::absolute(cache_path, ignored).parent_path();
    const std::string base = fs::path(cache_path).filename().string();
    const std::string own = process_id();
    std::size_t removed = 0;
    fs::directory_iterator entries(folder, ignored), end;
    for (; !ignored && entries != end; entries.increment(ignored)) {
        const std::string name = entries->path().filename().string();
        for (const std::string& infix : infixes) {
            const std::string prefix = base + infix;
            if (name.size() <= prefix.size() || name.rfind(prefix, 0) != 0) continue;
            const std::size_t dash = name.find('-', prefix.size());
            if (dash == std::string::npos) continue;  // no process id: an older version's name
            const std::string pid = name.substr(prefix.size(), dash - prefix.size());
            if (pid.empty() || pid.size() > 9 ||
                pid.find_first_not_of("0123456789") != std::string::npos || pid == own ||
                process_may_run(std::stol(pid)))
                continue;
            std::error_code failed;
            if (fs::remove(entries->path(), failed)) ++removed;
        }
    }
    return removed;
}

}  // namespace llmv::pipeline
