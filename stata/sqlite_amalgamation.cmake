# The SQLite amalgamation the Stata plugins link in (the portable Linux plugin and the Windows
# DLL): LLMV_SQLITE_SOURCE_DIR, or tools/fetch-sqlite.sh, which fetches it at configure time
# (never kept in the repository). Sets `out_var` to the folder holding sqlite3.c and sqlite3.h;
# `hint` ends the error message with what else the user may do.
set(LLMV_SQLITE_SOURCE_DIR "" CACHE PATH
    "Folder with the SQLite amalgamation (sqlite3.c, sqlite3.h); empty: tools/fetch-sqlite.sh")

function(llmv_sqlite_amalgamation out_var hint)
  set(folder ${LLMV_SQLITE_SOURCE_DIR})
  if(NOT folder)
    execute_process(COMMAND bash ${PROJECT_SOURCE_DIR}/tools/fetch-sqlite.sh
                    OUTPUT_VARIABLE folder RESULT_VARIABLE fetch_status
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT fetch_status EQUAL 0)
      message(FATAL_ERROR "tools/fetch-sqlite.sh could not fetch the SQLite amalgamation. Give a "
              "folder with sqlite3.c and sqlite3.h (-DLLMV_SQLITE_SOURCE_DIR=...)${hint}")
    endif()
  endif()
  if(NOT EXISTS ${folder}/sqlite3.c OR NOT EXISTS ${folder}/sqlite3.h)
    message(FATAL_ERROR "LLMV_SQLITE_SOURCE_DIR is '${folder}': it has no sqlite3.c and "
            "sqlite3.h (the SQLite amalgamation)")
  endif()
  set(${out_var} ${folder} PARENT_SCOPE)
endfunction()
