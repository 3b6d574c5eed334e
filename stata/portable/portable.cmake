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

# Before glibc 2.34 the pthread and dl functions live in libpthread.so.0 and libdl.so.2, and a
# versioned reference names the library that defined it at link time (readelf -V: "File:").
# Linked against this machine's glibc, every such reference names libc.so.6, and glibc 2.17 to
# 2.33 refuse to load the plugin ("symbol pthread_create, version GLIBC_2.2.5 not defined in
# file libc.so.6 with link time reference") unless the host process has loaded libpthread
# itself. So the plugin is linked against stand-ins: a libpthread.so.0 and a libdl.so.2 that
# define these functions with their pre-2.34 versions (functions that trap; they are never
# loaded, the system's own libraries are), placed before libc on the link line, so that the
# references name the right library. On glibc 2.34 and later the same versions are found in
# libc.so.6 (the lookup matches the version, not the file). Each list: the library, the version,
# its functions. check_plugin_binary.sh --portable fails on a pthread_* or dl* reference that
# still names libc.so.6: a new one goes here.
set(llmv_old_glibc_functions
    "libpthread.so.0 GLIBC_2.2.5 pthread_create pthread_join pthread_detach pthread_once
     pthread_key_create pthread_key_delete pthread_getspecific pthread_setspecific
     pthread_mutex_lock pthread_mutex_unlock pthread_mutex_trylock pthread_mutex_init
     pthread_mutex_destroy pthread_mutexattr_init pthread_mutexattr_destroy
     pthread_mutexattr_settype pthread_self pthread_equal pthread_sigmask pthread_kill
     pthread_attr_init pthread_attr_destroy pthread_attr_setstacksize pthread_setcancelstate
     pthread_rwlock_rdlock pthread_rwlock_wrlock pthread_rwlock_unlock pthread_rwlock_init
     pthread_rwlock_destroy __pthread_key_create"
    "libpthread.so.0 GLIBC_2.3.2 pthread_cond_init pthread_cond_destroy pthread_cond_wait
     pthread_cond_timedwait pthread_cond_signal pthread_cond_broadcast"
    "libdl.so.2 GLIBC_2.2.5 dlopen dlsym dlclose dlerror dladdr")
set(stub_folder ${CMAKE_CURRENT_BINARY_DIR}/old-glibc-stubs)
set(stub_library_pthread libpthread.so.0)
set(stub_library_dl libdl.so.2)
set(stub_files)
set(stub_targets)
foreach(stub pthread dl)
  set(library ${stub_library_${stub}})
  set(source "/* Generated by stata/portable/portable.cmake: link-time stand-in, never loaded. */\n")
  set(script "")
  set(previous "")
  foreach(entry ${llmv_old_glibc_functions})
    string(REGEX REPLACE "[ \t\n]+" ";" words "${entry}")
    list(POP_FRONT words entry_library version)
    if(NOT entry_library STREQUAL library)
      continue()
    endif()
    string(APPEND script "${version} {\n  global:\n")
    foreach(function ${words})
      string(APPEND source "void ${function}(void) { __builtin_trap(); }\n")
      string(APPEND script "    ${function};\n")
    endforeach()
    string(APPEND script "}${previous};\n")
    set(previous " ${version}")
  endforeach()
  set(stub_name old_glibc_${stub})
  # Written only when they change, so that a new configure does not relink the plugin.
  foreach(kind c map)
    if(kind STREQUAL "c")
      set(content "${source}")
    else()
      set(content "${script}")
    endif()
    file(WRITE ${stub_folder}/${stub_name}.${kind}.new "${content}")
    configure_file(${stub_folder}/${stub_name}.${kind}.new ${stub_folder}/${stub_name}.${kind}
                   COPYONLY)
  endforeach()
  add_library(llmv_stub_${stub_name} SHARED ${stub_folder}/${stub_name}.c)
  set_target_properties(llmv_stub_${stub_name} PROPERTIES NO_SONAME ON
    LIBRARY_OUTPUT_DIRECTORY ${stub_folder} OUTPUT_NAME ${stub_name}
    LINK_DEPENDS ${stub_folder}/${stub_name}.map)
  target_compile_options(llmv_stub_${stub_name} PRIVATE -w -fno-builtin)
  target_link_options(llmv_stub_${stub_name} PRIVATE -nostdlib -Wl,-soname,${library}
                      -Wl,--version-script=${stub_folder}/${stub_name}.map)
  list(APPEND stub_targets llmv_stub_${stub_name})
  list(APPEND stub_files ${stub_folder}/lib${stub_name}.so)
endforeach()
add_dependencies(llmvalidate_plugin ${stub_targets})
# By path, not as targets: a target would put the stand-ins' folder into the plugin's RPATH.
target_link_libraries(llmvalidate_plugin PRIVATE -Wl,--no-as-needed ${stub_files} -Wl,--as-needed)
set_property(TARGET llmvalidate_plugin APPEND PROPERTY LINK_DEPENDS ${stub_files})
set_target_properties(llmvalidate_plugin PROPERTIES SKIP_BUILD_RPATH ON)
