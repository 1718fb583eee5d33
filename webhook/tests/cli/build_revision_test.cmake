cmake_minimum_required(VERSION 3.25)
# Runs build_revision.cmake in script mode against a directory that is not a git checkout,
# then with an explicit revision, and checks what it would record in build_info.hpp.
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
set(PROJECT_SOURCE_DIR ${SCRATCH})
# Outside any repository, even if a parent directory is one.
set(ENV{GIT_CEILING_DIRECTORIES} ${SCRATCH}/..)
include(${GPUA_TELEMETRY_DIR}/build_revision.cmake)
if(NOT GPUA_BUILD_REVISION STREQUAL "unknown")
  message(FATAL_ERROR "no git: expected revision 'unknown', got '${GPUA_BUILD_REVISION}'")
endif()
set(GPUA_REVISION "abc123 def/1")
include(${GPUA_TELEMETRY_DIR}/build_revision.cmake)
if(NOT GPUA_BUILD_REVISION STREQUAL "abc123_def_1")
  message(FATAL_ERROR "explicit: expected 'abc123_def_1' (label-safe), got '${GPUA_BUILD_REVISION}'")
endif()
message(STATUS "build revision fallback and override: ok")
