cmake_minimum_required(VERSION 3.25)
# Runs build_revision.cmake in script mode against scratch directories and checks what it would
# record in build_info.hpp: the commit of a git checkout, "-dirty" once a tracked file changes,
# "unknown" outside git, and an explicit GPUA_REVISION over all of them.
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/plain ${SCRATCH}/repo)
# Outside any repository, even if a parent directory is one.
set(ENV{GIT_CEILING_DIRECTORIES} ${SCRATCH})

function(expect what want)
  include(${GPUA_TELEMETRY_DIR}/build_revision.cmake)
  if(NOT GPUA_BUILD_REVISION STREQUAL "${want}")
    message(FATAL_ERROR "${what}: expected revision '${want}', got '${GPUA_BUILD_REVISION}'")
  endif()
endfunction()

set(PROJECT_SOURCE_DIR ${SCRATCH}/plain)
expect("no git" "unknown")

find_program(GIT git)
if(GIT)
  set(repo ${SCRATCH}/repo)
  set(git ${GIT} -C ${repo} -c user.name=t -c user.email=t@example.com -c commit.gpgsign=false)
  execute_process(COMMAND ${git} init -q COMMAND_ERROR_IS_FATAL ANY)
  file(WRITE ${repo}/a.txt "one\n")
  execute_process(COMMAND ${git} add a.txt COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${git} commit -q -m one COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND ${git} rev-parse --short=12 HEAD OUTPUT_VARIABLE head
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  set(PROJECT_SOURCE_DIR ${repo})
  expect("clean checkout" "${head}")
  file(WRITE ${repo}/untracked.txt "x\n")
  expect("untracked files only" "${head}")
  file(WRITE ${repo}/a.txt "two\n")
  expect("modified tracked file" "${head}-dirty")
else()
  message(STATUS "git not installed: only the fallback and the override are checked")
endif()

set(GPUA_REVISION "abc123 def/1")
expect("explicit" "abc123_def_1")
message(STATUS "build revision from git, dirty, fallback and override: ok")
