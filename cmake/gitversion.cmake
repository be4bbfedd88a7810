# gitversion.cmake: write gitversion.h with `git describe` of the source tree, at every build
# (the file changes only when the description does, so nothing rebuilds needlessly).
# -DSRC=source dir -DOUT=header path
set(desc "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SRC} describe --always --dirty --tags
                  OUTPUT_VARIABLE d OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE r)
  if(r EQUAL 0 AND d)
    set(desc "${d}")
  endif()
endif()
set(text "#define CUDNNCTL_GIT_DESCRIBE \"${desc}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
