# CMake toolchain: Windows x64 binaries cross-compiled on Debian with mingw-w64 (the posix
# threads variant, whose libstdc++ has std::thread; Debian package g++-mingw-w64-x86-64-posix).
# Used by tools/build-windows-plugin.sh for the Windows Stata plugin and by
# tools/build-curl-windows.sh for the static libcurl it links.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
# Libraries and packages come from the mingw sysroot and the prefixes the build scripts give
# (CMAKE_FIND_ROOT_PATH), never from the Linux system; programs (cmake, ninja) from the host.
list(APPEND CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
