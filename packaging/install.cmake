# install.cmake: what `cmake --install` puts where (GNUInstallDirs), included from the top level.
#   bin/cudnnctl                               the tool (linked against the static library: below)
#   lib/libcudnnctl.so.0 -> .so.0.1.0, .so     the shared library; only CUDNNCTL_API symbols exported
#   include/cudnnctl/*.h, errors.def           the public API (cudnnctl.h compiles on its own)
#   lib/pkgconfig/cudnnctl.pc                  pkg-config
#   lib/cmake/cudnnctl/                        find_package(cudnnctl) -> cudnnctl::cudnnctl
#   share/doc/cudnnctl/                        README, docs, LICENSE (and Debian's copyright)
#
# The CLI links the static archive, not libcudnnctl.so.0: it calls the platform layer (cc_pf_*),
# which is not part of the library's ABI and stays hidden in the .so; a static tool also keeps
# working when copied alone onto a host (the Ansible role's binary mode) and cannot be broken by a
# mismatched libcudnnctl.so.0 of another version. The .so is for programs that use the C API.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
if(WIN32)
  # the Windows ZIP is flat: cudnnctl.exe, LICENSE, README.md, README-windows.txt at the top, docs\
  # (after GNUInstallDirs: its cache entries would drop normal variables set before it)
  set(CMAKE_INSTALL_BINDIR .)
  set(CMAKE_INSTALL_DOCDIR .)
endif()

install(TARGETS cudnnctl RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/LICENSE ${CMAKE_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

if(WIN32)
  # the Windows package is the static cudnnctl.exe with its docs (packaging/cpack.cmake); no DLL,
  # so no headers either
  install(FILES ${CMAKE_SOURCE_DIR}/packaging/windows/README-windows.txt DESTINATION .)
  return()
endif()

# (not cudnnctl_test.h: the fault-injection hooks are not exported, a program cannot use them)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/cudnnctl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "cudnnctl_test.h" EXCLUDE)

# Debian wants the licence as /usr/share/doc/<package>/copyright
install(FILES ${CMAKE_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)

# ---- libcudnnctl.so.0: the static archive, whole, behind its visibility ----------------------------
# Everything is compiled with -fvisibility=hidden (CMAKE_C_VISIBILITY_PRESET); CUDNNCTL_API marks
# the exported functions. The unit tests keep linking the static archive for the internals.
set_target_properties(cudnnctl_lib PROPERTIES POSITION_INDEPENDENT_CODE ON)
add_library(cudnnctl_shared SHARED ${CMAKE_SOURCE_DIR}/packaging/shlib.c)
target_link_libraries(cudnnctl_shared PRIVATE -Wl,--whole-archive cudnnctl_lib -Wl,--no-whole-archive
                      -Wl,--no-undefined)
target_include_directories(cudnnctl_shared PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                                                  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(cudnnctl_shared PROPERTIES
  OUTPUT_NAME cudnnctl EXPORT_NAME cudnnctl
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/shlib)
install(TARGETS cudnnctl_shared EXPORT cudnnctlTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_SKIP)
install(TARGETS cudnnctl_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_ONLY)

# ---- pkg-config: the prefix is the one of the install (a package installs to /usr, not /usr/local) -
# Written by the install step itself (not configured into the build dir and copied), so that
# concurrent installs to different prefixes (the tests, cpack) cannot see each other's file.
install(CODE "
  set(CUDNNCTL_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(CMAKE_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  set(_pc \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/cudnnctl.pc\")
  message(STATUS \"Installing: \${_pc}\")
  configure_file(\"${CMAKE_SOURCE_DIR}/packaging/cudnnctl.pc.in\" \"\${_pc}\" @ONLY)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/cudnnctl.pc\")")

# ---- find_package(cudnnctl): relocatable config, imported target cudnnctl::cudnnctl ----------------
set(CUDNNCTL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cudnnctl)
install(EXPORT cudnnctlTargets NAMESPACE cudnnctl:: DESTINATION ${CUDNNCTL_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/packaging/cudnnctlConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cudnnctlConfig.cmake INSTALL_DESTINATION ${CUDNNCTL_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cudnnctlConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cudnnctlConfig.cmake ${CMAKE_BINARY_DIR}/cudnnctlConfigVersion.cmake
        DESTINATION ${CUDNNCTL_CMAKE_DIR})
