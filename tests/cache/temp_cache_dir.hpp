// A fresh directory under /tmp for one test's cache file, removed with the file and SQLite's
// WAL companions at the end of the test.
#pragma once

#include <sqlite3.h>
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

// Holds the write lock of a cache file from a connection of its own, as another process
// writing would (readers go on: the cache is in WAL mode), until release() or destruction.
class HeldWriteLock {
  public:
    explicit HeldWriteLock(const std::string& cache_path) {
        if (sqlite3_open(cache_path.c_str(), &connection_) != SQLITE_OK ||
            sqlite3_exec(connection_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
            sqlite3_close(connection_);
            throw std::runtime_error("could not take the write lock of " + cache_path);
        }
    }
    ~HeldWriteLock() { release(); }
    HeldWriteLock(const HeldWriteLock&) = delete;
    HeldWriteLock& operator=(const HeldWriteLock&) = delete;
    void release() {
        if (!connection_) return;
        sqlite3_exec(connection_, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(connection_);
        connection_ = nullptr;
    }

  private:
    sqlite3* connection_ = nullptr;
};

}  // namespace llmv::test
