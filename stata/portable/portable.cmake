# The portable Linux plugin (included by stata/CMakeLists.txt when LLMV_PORTABLE_PLUGIN is on):
# one llmvalidate.plugin that loads on any x86_64 Linux with glibc 2.17 or later (RHEL/CentOS 7
# onwards). The C++ runtime and SQLite are linked in; libcurl is loaded at run time from the
# system (cpp/transport/curl_dlopen.cpp); the glibc symbols are held to 2.17 by glibc_compat.c.
# stata/tests/check_plugin_binary.sh --portable checks the result.

set(LLMV_GLIBC_FLOOR 2.17 CACHE INTERNAL "The oldest glibc the portable plugin loads with")

# SQLite from its amalgamation, fetched at configure time (never kept in the repository).
set(LLMV_SQLITE_SOURCE_DIR "" CACHE PATH
    "Folder with the SQLite amalgamation (sqlite3.c, sqlite3.h); empty: tools/fetch-sqlite.sh")
set(sqlite_source_dir ${LLMV_SQLITE_SOURCE_DIR})
if(NOT sqlite_source_dir)
  execute_process(COMMAND bash ${PROJECT_SOURCE_DIR}/tools/fetch-sqlite.sh
                  OUTPUT_VARIABLE sqlite_source_dir RESULT_VARIABLE fetch_status
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT fetch_status EQUAL 0)
    message(FATAL_ERROR "tools/fetch-sqlite.sh could not fetch the SQLite amalgamation for the "
            "portable Stata plugin. Give a folder with sqlite3.c and sqlite3.h "
            "(-DLLMV_SQLITE_SOURCE_DIR=...), or build the plugin against the system libraries "
            "(-DLLMV_PORTABLE_PLUGIN=OFF).")
  endif()
endif()
if(NOT EXISTS ${sqlite_source_dir}/sqlite3.c OR NOT EXISTS ${sqlite_source_dir}/sqlite3.h)
  message(FATAL_ERROR "LLMV_SQLITE_SOURCE_DIR is '${sqlite_source_dir}': it has no sqlite3.c and "
          "sqlite3.h (the SQLite amalgamation)")
endif()
message(STATUS "llmvalidate Stata plugin: portable, SQLite from ${sqlite_source_dir}")
add_library(llmv_sqlite_static STATIC ${sqlite_source_dir}/sqlite3.c)
target_include_directories(llmv_sqlite_static PRIVATE ${sqlite_source_dir})
# Serialized threading as in the distributions' builds; no extension loading (no dlopen).
target_compile_definitions(llmv_sqlite_static PRIVATE SQLITE_THREADSAFE=1
                           SQLITE_OMIT_LOAD_EXTENSION=1 SQLITE_DEFAULT_MEMSTATUS=0)
target_compile_options(llmv_sqlite_static PRIVATE -w)  # not our code
target_link_libraries(llmv_sqlite_static PUBLIC Threads::Threads m)

# The engine's libraries pick the dlopen'ed libcurl and the static SQLite for this target
# (cpp/CMakeLists.txt: llmv_curl, llmv_sqlite).
set_target_properties(llmvalidate_plugin PROPERTIES LLMV_PORTABLE ON)
target_sources(llmvalidate_plugin PRIVATE ${CMAKE_CURRENT_LIST_DIR}/glibc_compat.c)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/glibc_compat.c PROPERTIES
                            COMPILE_OPTIONS -fvisibility=hidden)

# Every function glibc_compat.c redirects to its pre-2.34 (or pre-2.33, pre-2.28) version.
set(llmv_glibc_redirects
    pthread_create pthread_join pthread_detach pthread_once pthread_key_create
    pthread_key_delete pthread_getspecific pthread_setspecific pthread_mutex_trylock
    pthread_mutexattr_init pthread_mutexattr_destroy pthread_mutexattr_settype
    pthread_cond_timedwait __pthread_key_create pow
    dlopen dlsym dlclose dlerror dladdr
    stat64 lstat64 fstat64 fstatat64 stat lstat fstat
    fcntl64)
set(wrap_options)
foreach(symbol ${llmv_glibc_redirects})
  list(APPEND wrap_options -Wl,--wrap=${symbol})
endforeach()
target_link_options(llmvalidate_plugin PRIVATE -static-libstdc++ -static-libgcc ${wrap_options})
# Before glibc 2.34 the pthread and dl functions live in libpthread.so.0 and libdl.so.2: name
# them, so that an old system loads them with the plugin.
target_link_libraries(llmvalidate_plugin PRIVATE -Wl,--no-as-needed -l:libpthread.so.0
                      -l:libdl.so.2 -Wl,--as-needed)
