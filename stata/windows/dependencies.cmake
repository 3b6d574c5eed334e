# The engine's dependencies when it is cross-compiled for Windows (the Windows Stata plugin,
# tools/build-windows-plugin.sh), included by the top-level CMakeLists.txt instead of its
# find_package() calls:
# - the header-only libraries (Eigen, Boost.Math, nlohmann-json, toml11) are the build machine's
#   Debian packages, reached through a folder of links so that no Linux system header
#   (/usr/include) comes before mingw-w64's own;
# - libcurl is the static Schannel build of tools/build-curl-windows.sh (CURL::libcurl from its
#   CMake package: CURL_STATICLIB and the Windows libraries it needs);
# - SQLite is the amalgamation (tools/fetch-sqlite.sh), linked statically as SQLite::SQLite3.

set(LLMV_WINDOWS_HEADERS_FROM /usr/include CACHE PATH
    "Where the header-only libraries are (eigen3/Eigen, boost, nlohmann, toml.hpp)")
set(header_links ${CMAKE_BINARY_DIR}/windows-headers)
file(MAKE_DIRECTORY ${header_links})
foreach(entry eigen3/Eigen eigen3/unsupported boost nlohmann toml.hpp toml)
  get_filename_component(name ${entry} NAME)
  if(NOT EXISTS ${LLMV_WINDOWS_HEADERS_FROM}/${entry})
    message(FATAL_ERROR "The Windows build needs ${LLMV_WINDOWS_HEADERS_FROM}/${entry} "
            "(tools/setup.sh installs the Debian packages; LLMV_WINDOWS_HEADERS_FROM names "
            "another folder)")
  endif()
  file(CREATE_LINK ${LLMV_WINDOWS_HEADERS_FROM}/${entry} ${header_links}/${name} SYMBOLIC)
endforeach()

add_library(Eigen3::Eigen INTERFACE IMPORTED)
target_include_directories(Eigen3::Eigen SYSTEM INTERFACE ${header_links})
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json SYSTEM INTERFACE ${header_links})
set(Boost_INCLUDE_DIRS ${header_links})
# toml11 is included without a target (as /usr/include on Linux): every target sees the links.
include_directories(SYSTEM ${header_links})

find_package(CURL CONFIG REQUIRED)  # CMAKE_FIND_ROOT_PATH names the prefix

include(${PROJECT_SOURCE_DIR}/stata/sqlite_amalgamation.cmake)
llmv_sqlite_amalgamation(sqlite_source_dir "")
add_library(llmv_sqlite_windows STATIC ${sqlite_source_dir}/sqlite3.c)
target_include_directories(llmv_sqlite_windows SYSTEM PUBLIC ${sqlite_source_dir})
target_compile_definitions(llmv_sqlite_windows PRIVATE SQLITE_THREADSAFE=1
                           SQLITE_OMIT_LOAD_EXTENSION=1 SQLITE_DEFAULT_MEMSTATUS=0)
target_compile_options(llmv_sqlite_windows PRIVATE -w)  # not our code
add_library(SQLite::SQLite3 ALIAS llmv_sqlite_windows)
