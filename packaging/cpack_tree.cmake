# cpack_tree.cmake: what each package format puts differently, applied by CPack to the staged
# install tree of each generator before it makes the package (CPACK_PRE_BUILD_SCRIPTS). Every
# other file is exactly what `cmake --install` installs (tests/integration/test_packages.sh).
#   DEB: share/doc/cudnnctl/changelog.gz, the Debian changelog (gzip -9n; a native package, so
#        not changelog.Debian.gz), whose newest entry must be this version
#   RPM: the zsh completion in share/zsh/site-functions (Fedora's zsh looks there; Debian's in
#        vendor-completions); bash and fish use the same paths on both
set(tree "${CPACK_TEMPORARY_INSTALL_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}")
if(NOT IS_DIRECTORY "${tree}/share")
  message(FATAL_ERROR "cpack_tree.cmake: no staged tree at ${tree}")
endif()

if(CPACK_GENERATOR STREQUAL "DEB")
  file(STRINGS "${CPACK_CUDNNCTL_CHANGELOG}" top LIMIT_COUNT 1)
  if(NOT top MATCHES "^cudnnctl \\(${CPACK_PACKAGE_VERSION}\\) ")
    message(FATAL_ERROR "packaging/debian/changelog.in starts with '${top}': add an entry for "
            "cudnnctl ${CPACK_PACKAGE_VERSION} at its top (dch -v ${CPACK_PACKAGE_VERSION})")
  endif()
  set(doc "${tree}/share/doc/${CPACK_PACKAGE_NAME}")
  execute_process(COMMAND "${CPACK_CUDNNCTL_GZIP}" -9n -c "${CPACK_CUDNNCTL_CHANGELOG}"
                  OUTPUT_FILE "${doc}/changelog.gz" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip -9n ${CPACK_CUDNNCTL_CHANGELOG} failed (${rc})")
  endif()
elseif(CPACK_GENERATOR STREQUAL "RPM")
  set(from "${tree}/share/zsh/vendor-completions")
  if(EXISTS "${from}/_cudnnctl")
    file(MAKE_DIRECTORY "${tree}/share/zsh/site-functions")
    file(RENAME "${from}/_cudnnctl" "${tree}/share/zsh/site-functions/_cudnnctl")
    file(GLOB left "${from}/*")
    if(NOT left)
      file(REMOVE_RECURSE "${from}")
    endif()
  endif()
endif()
