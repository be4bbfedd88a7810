# cpack.cmake: binary packages of cudnnctl (`cpack -G DEB|RPM|TGZ` in the build dir on Linux,
# `cpack -G ZIP` in the mingw-w64 cross build). Every package holds what `cmake --install` installs
# (packaging/install.cmake, plus the man pages and completions the top level installs), under /usr.
#   Linux:   cudnnctl_<ver>_<arch>.deb, cudnnctl-<ver>-1.<arch>.rpm, cudnnctl-<ver>-Linux.tar.gz
#   Windows: cudnnctl-<ver>-windows-x86_64.zip (cudnnctl.exe, README-windows.txt, LICENSE, docs\)
# One package, not a lib/-dev split: the tool is linked statically (packaging/install.cmake says
# why), so a split would give a libcudnnctl0 that the tool does not use and that the -dev package
# alone needs; one package keeps the fleet install (Ansible: one .deb) to one file.
#
# The maintainer is set in one place, this cache variable: the DEB's Maintainer, the RPM's
# Packager and the Debian changelog's trailer. Whoever publishes packages sets their own
# (cmake -DCUDNNCTL_MAINTAINER="Jane Doe <jane@lab.edu>"); the default is the project's.
set(CUDNNCTL_MAINTAINER "cudnnctl maintainers <maintainers@cudnnctl.org>" CACHE STRING
    "package maintainer, as 'Name <address>' (DEB Maintainer, RPM Packager, Debian changelog)")
if(NOT CUDNNCTL_MAINTAINER MATCHES "^[^<>@]+ <[^<>@ ]+@[^<>@ ]+\\.[a-z]+>$" OR
   CUDNNCTL_MAINTAINER MATCHES "[@.](localhost|localdomain|local|invalid)>$")
  message(FATAL_ERROR "CUDNNCTL_MAINTAINER is '${CUDNNCTL_MAINTAINER}': give 'Name <user@host.tld>' "
          "with a host that receives mail, e.g. -DCUDNNCTL_MAINTAINER=\"Jane Doe <jane@lab.edu>\"")
endif()
set(CPACK_PACKAGE_NAME cudnnctl)
set(CPACK_PACKAGE_VENDOR "cudnnctl")
set(CPACK_PACKAGE_CONTACT "${CUDNNCTL_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "install, switch and validate NVIDIA cuDNN")
# lines of at most 72 columns (Debian's extended description: lintian wants <= 80 with the
# leading space; rpm shows them as they are)
set(CPACK_PACKAGE_DESCRIPTION
  "cudnnctl detects CUDA toolkits, drivers and cuDNN copies, picks the
right archive from NVIDIA's redistrib manifests, verifies its SHA-256,
installs it into a CUDA tree or a per-version prefix, wires the
environment and validates the result on the GPU. The package also holds
libcudnnctl.so.0, its C headers, a pkg-config file and a CMake package
config.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${CMAKE_SOURCE_DIR}/README.md)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_PACKAGE_CHECKSUM SHA256)
if(WIN32)
  set(CPACK_GENERATOR ZIP)
  set(CPACK_PACKAGE_FILE_NAME cudnnctl-${PROJECT_VERSION}-windows-x86_64)
  set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY OFF) # cudnnctl.exe at the top of the ZIP (scoop/winget)
else()
  set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
  set(CPACK_GENERATOR TGZ DEB)
  find_program(CUDNNCTL_RPMBUILD rpmbuild)
  if(CUDNNCTL_RPMBUILD)
    list(APPEND CPACK_GENERATOR RPM)
  endif()
  # What each format puts differently (packaging/cpack_tree.cmake, run per generator on the
  # staged tree): the DEB's changelog.gz; the RPM's zsh completion in Fedora's site-functions.
  find_program(CUDNNCTL_GZIP gzip REQUIRED)
  configure_file(${CMAKE_SOURCE_DIR}/packaging/debian/changelog.in
                 ${CMAKE_BINARY_DIR}/packaging/changelog @ONLY)
  set(CPACK_CUDNNCTL_CHANGELOG ${CMAKE_BINARY_DIR}/packaging/changelog)
  set(CPACK_CUDNNCTL_GZIP ${CUDNNCTL_GZIP})
  set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_SOURCE_DIR}/packaging/cpack_tree.cmake)
  # DEB: Depends from dpkg-shlibdeps over the binary and the library (libc6, libarchive13,
  # libcurl4, libssl3, libcjson1, libinih1 on Debian 12); shlibs; the ldconfig trigger instead
  # of the postinst/postrm that CPack writes (packaging/deb_control.cmake, after the build)
  set(CPACK_CUDNNCTL_TRIGGERS ${CMAKE_SOURCE_DIR}/packaging/debian/triggers)
  set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_SOURCE_DIR}/packaging/deb_control.cmake)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
  set(CPACK_DEBIAN_PACKAGE_SECTION utils)
  set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pkg-config, cmake")
  # RPM: Requires from rpm's ELF dependency generator; ldconfig after (un)install
  set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
  set(CPACK_RPM_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}") # else CPack's placeholder
  set(CPACK_RPM_PACKAGE_LICENSE MIT)
  set(CPACK_RPM_PACKAGE_GROUP "Development/Tools")
  set(CPACK_RPM_PACKAGE_AUTOREQPROV ON)
  # no /usr/lib/.build-id links; the Packager tag (rpm's %packager macro) is the maintainer
  set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none\n%define packager ${CUDNNCTL_MAINTAINER}")
  set(CPACK_RPM_POST_INSTALL_SCRIPT_FILE ${CMAKE_SOURCE_DIR}/packaging/rpm-ldconfig.sh)
  set(CPACK_RPM_POST_UNINSTALL_SCRIPT_FILE ${CMAKE_SOURCE_DIR}/packaging/rpm-ldconfig.sh)
  # directories the system owns (filesystem package): not claimed by this package
  set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
      /usr/share/man /usr/share/man/man1 /usr/share/man/man5 /usr/share/man/man7
      /usr/share/bash-completion /usr/share/bash-completion/completions
      /usr/share/zsh /usr/share/zsh/site-functions /usr/share/zsh/vendor-completions
      /usr/share/fish /usr/share/fish/vendor_completions.d
      /usr/lib/pkgconfig /usr/lib/cmake /usr/lib64/pkgconfig /usr/lib64/cmake /usr/share/doc)
endif()
include(CPack)
