// Files a run keeps beside the cache while it runs (private to cpp/pipeline/): the cache
// buffer's journal, the batch-API runner's work file and downloads. Each name carries the
// process id, so that a later run can tell the files of a process that ended without removing
// them (SIGKILL, a crash) from those of a run still going on the same cache.
#pragma once

#include <string>
#include <vector>

namespace llmv::pipeline {

// This process's id, as it appears in the files' names.
std::string process_id();

// Whether the process `pid` may still run (Windows: always assumed so: its files stay).
bool process_may_run(long pid);

// Removes, in the cache's folder, every file named <cache file name><infix><pid>-... (with any
// suffix: a SQLite file's -wal and -shm too) whose process has ended, for each infix. Returns
// the number of files removed. Files of this process and of running ones are kept.
std::size_t remove_files_of_ended_runs(const std::string& cache_path,
                                       const std::vector<std::string>& infixes);

}  // namespace llmv::pipeline
