// A fresh directory under /tmp for one test's cache file, removed with the file and SQLite's
// WAL companions at the end of the test.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace llmv::test {

class TempCacheDir {
  public:
    explicit TempCacheDir(const std::string& prefix = "llmv-cache-test") {
        std::string name = "/tmp/" + prefix + "-XXXXXX";
        if (!::mkdtemp(name.data())) throw std::runtime_error("mkdtemp failed");
        path = name;
    }
    ~TempCacheDir() {
        for (const char* file : {"/cache.sqlite", "/cache.sqlite-wal", "/cache.sqlite-shm"}) {
            std::remove((path + file).c_str());
        }
        ::rmdir(path.c_str());
    }
    TempCacheDir(const TempCacheDir&) = delete;
    TempCacheDir& operator=(const TempCacheDir&) = delete;
    std::string cache() const { return path + "/cache.sqlite"; }
    std::string path;
};

}  // namespace llmv::test
