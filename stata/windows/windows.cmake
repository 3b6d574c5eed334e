# The Windows x64 plugin (included by stata/CMakeLists.txt when WIN32; cross-compiled on Debian
# by tools/build-windows-plugin.sh, see stata/README.md "Platforms"): one DLL that needs only
# Windows' own libraries. The C++ runtime, libgcc and winpthread are linked in (-static), and
# so are libcurl (Schannel TLS) and SQLite (stata/windows/dependencies.cmake). The DLL exports
# pginit and stata_call, the two functions plugin.cpp marks dllexport.
# stata/tests/check_plugin_binary.sh --windows checks the result.
target_link_options(llmvalidate_plugin PRIVATE -static -static-libgcc -static-libstdc++
                    -Wl,--no-undefined)

# The transcript program of the platform comparison (stata/tests/platforms/), for Windows: run
# under wine by tools/test.d/stata-windows.sh against this plugin.
add_executable(plugin_transcript ${CMAKE_CURRENT_SOURCE_DIR}/tests/platforms/plugin_transcript.cpp
               ${CMAKE_CURRENT_SOURCE_DIR}/tests/host/fake_stata.cpp
               ${CMAKE_CURRENT_SOURCE_DIR}/tests/host/fixtures.cpp)
target_include_directories(plugin_transcript PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/spi
                           ${CMAKE_CURRENT_SOURCE_DIR}/tests/host)
target_compile_definitions(plugin_transcript PRIVATE SYSTEM=STWIN32)
target_link_libraries(plugin_transcript PRIVATE nlohmann_json::nlohmann_json llmv_warnings)
target_link_options(plugin_transcript PRIVATE -static)
