# Sets GPUA_BUILD_REVISION for build_info.hpp: an explicit -DGPUA_REVISION wins (container
# builds copy the sources without .git and pass the commit as a build argument), then
# `git rev-parse` of the source tree (with "-dirty" when tracked files are modified), then
# "unknown". Runs at configure time; `make build` reconfigures on every run, so the revision
# follows new commits.
set(GPUA_REVISION "" CACHE STRING "Source revision recorded in the binary (default: from git)")
set(GPUA_BUILD_REVISION "${GPUA_REVISION}")
if(GPUA_BUILD_REVISION STREQUAL "")
  find_program(GPUA_GIT git)
  if(GPUA_GIT)
    execute_process(COMMAND ${GPUA_GIT} rev-parse --short=12 HEAD
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                    OUTPUT_VARIABLE GPUA_BUILD_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE gpua_git_rc ERROR_QUIET)
    if(NOT gpua_git_rc EQUAL 0)
      set(GPUA_BUILD_REVISION "")
    else()
      execute_process(COMMAND ${GPUA_GIT} status --porcelain --untracked-files=no
                      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                      OUTPUT_VARIABLE gpua_git_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(NOT gpua_git_dirty STREQUAL "")
        string(APPEND GPUA_BUILD_REVISION "-dirty")
      endif()
    endif()
  endif()
endif()
if(GPUA_BUILD_REVISION STREQUAL "")
  set(GPUA_BUILD_REVISION "unknown")
endif()
# Printable, label-safe characters only: the value goes into a Prometheus label.
string(REGEX REPLACE "[^A-Za-z0-9._+-]" "_" GPUA_BUILD_REVISION "${GPUA_BUILD_REVISION}")
