# deb_control.cmake: the .deb's control area as Debian wants it, run by CPack after it made the
# package (CPACK_POST_BUILD_SCRIPTS; the checksum file is written after this). CPack 3.25 adds a
# postinst and a postrm that run ldconfig whenever the package has a library in /usr/lib, and has
# no switch for it; Debian asks for the ldconfig trigger instead (policy 8.1.1; lintian:
# maintscript-calls-ldconfig, lacks-ldconfig-trigger). So: unpack with dpkg-deb, drop those two
# scripts (only when they are CPack's ldconfig calls and nothing else), add `triggers`
# (activate-noawait ldconfig), build it again with root as every file's owner.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()
find_program(DPKG_DEB dpkg-deb REQUIRED)
foreach(deb ${CPACK_PACKAGE_FILES})
  set(work "${CPACK_TOPLEVEL_DIRECTORY}/control-rebuild")
  file(REMOVE_RECURSE "${work}")
  execute_process(COMMAND "${DPKG_DEB}" -R "${deb}" "${work}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -R ${deb} failed (${rc})")
  endif()
  foreach(script postinst postrm)
    set(f "${work}/DEBIAN/${script}")
    if(EXISTS "${f}")
      file(STRINGS "${f}" lines REGEX "[^ \t]")
      list(FILTER lines EXCLUDE REGEX "^[ \t]*(#|set -e|ldconfig|if \\[ \"\\$1\" = \"(configure|remove)\" \\]; then|fi)")
      if(lines)
        message(FATAL_ERROR "${deb}: ${script} does more than ldconfig (${lines}): keep it, fix "
                "packaging/deb_control.cmake")
      endif()
      file(REMOVE "${f}")
    endif()
  endforeach()
  file(COPY "${CPACK_CUDNNCTL_TRIGGERS}" DESTINATION "${work}/DEBIAN"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  execute_process(COMMAND "${DPKG_DEB}" --root-owner-group -Zxz -b "${work}" "${deb}"
                  OUTPUT_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -b ${work} ${deb} failed (${rc})")
  endif()
  file(REMOVE_RECURSE "${work}")
endforeach()
