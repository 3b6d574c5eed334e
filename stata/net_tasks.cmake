# The shipped tasks (prompts/*.toml) in the Stata package. Included at the end of
# stata/CMakeLists.txt, after the plugin and net-folder targets exist.
#
# net install copies each `F` file of llmvalidate.pkg onto the ado-path (a .toml file listed
# with `f` would be ancillary, copied only by net get into the current folder), where the ado-file's
# `findfile <task>.toml` finds it; so the task files go into every folder users install from
# (build/stata/net and, like the plugin, the repository's stata/, ignored by git). The plugin
# learns their names at build time (LLMV_STATA_SHIPPED_TASKS): on a user's machine there is no
# prompts folder for the engine to list.
file(GLOB llmv_stata_task_files CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/prompts/*.toml)
list(SORT llmv_stata_task_files)
set(llmv_stata_task_names)
foreach(task_file ${llmv_stata_task_files})
  get_filename_component(task_name ${task_file} NAME_WE)
  list(APPEND llmv_stata_task_names ${task_name})
endforeach()
string(REPLACE ";" "," llmv_stata_task_list "${llmv_stata_task_names}")
target_compile_definitions(llmvalidate_plugin PRIVATE
  LLMV_STATA_SHIPPED_TASKS="${llmv_stata_task_list}")

set(llmv_stata_task_folders ${stata_net_dir})
if(LLMV_STATA_PLUGIN_IN_SOURCE)
  list(APPEND llmv_stata_task_folders ${CMAKE_CURRENT_SOURCE_DIR})
endif()
set(llmv_stata_task_copies)
foreach(folder ${llmv_stata_task_folders})
  list(APPEND llmv_stata_task_copies COMMAND ${CMAKE_COMMAND} -E make_directory ${folder})
  foreach(task_file ${llmv_stata_task_files})
    list(APPEND llmv_stata_task_copies COMMAND ${CMAKE_COMMAND} -E copy_if_different
         ${task_file} ${folder}/)
  endforeach()
  # The price table, under a name of its own on the ado-path (the ado's findfile).
  list(APPEND llmv_stata_task_copies COMMAND ${CMAKE_COMMAND} -E copy_if_different
       ${PROJECT_SOURCE_DIR}/prompts/prices.csv ${folder}/llmvalidate_prices.csv)
endforeach()
# Always runs (a cheap copy_if_different), so an edited or deleted copy comes back.
add_custom_target(stata_net_tasks ALL ${llmv_stata_task_copies}
  COMMENT "Shipped tasks into the Stata net-install folders" VERBATIM)
add_dependencies(stata_net_tasks llmvalidate_plugin)

if(LLMV_BUILD_TESTS)
  add_dependencies(stata_host_tests stata_net_tasks)
  target_compile_definitions(stata_host_tests PRIVATE LLMV_NET_BUILD_FOLDER="${stata_net_dir}")
endif()
