# mingw-w64.cmake: CMake toolchain for cross-building the Windows x86_64 cudnnctl on Linux with
# Debian's mingw-w64 (gcc, win32 thread model). Tests run through wine (CMAKE_CROSSCOMPILING_EMULATOR).
# The static dependency prefix (built by scripts/test-windows.sh) comes in as CUDNNCTL_WIN_DEPS,
# a cache variable or an environment variable.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_AR x86_64-w64-mingw32-ar CACHE FILEPATH "archiver")
set(CMAKE_RANLIB x86_64-w64-mingw32-ranlib CACHE FILEPATH "ranlib")

if(NOT CUDNNCTL_WIN_DEPS AND DEFINED ENV{CUDNNCTL_WIN_DEPS})
  set(CUDNNCTL_WIN_DEPS "$ENV{CUDNNCTL_WIN_DEPS}")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CUDNNCTL_WIN_DEPS)

set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 ${CUDNNCTL_WIN_DEPS})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(CUDNNCTL_WINE NAMES wine)
if(CUDNNCTL_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CUDNNCTL_WINE})
endif()
