# Layering by include path. A library's include directories hold only the folders it may use:
# its own, and through its PUBLIC links those of the libraries below it. So `#include
# "cluster/..."` in the engine is a build error, not a review comment. Each target exposes its
# folder through a directory of its own in the build tree holding a link to the folder, or with
# HEADERS to just those headers (kube/ is two targets: the JSON-free floor and its JSON parts).
function(gpua_expose target folder)
  cmake_parse_arguments(ARG "" "" "HEADERS" ${ARGN})
  set(root ${CMAKE_BINARY_DIR}/gpua_include/${target})
  # A build tree configured before a folder changed form (whole folder <-> chosen headers) holds
  # the other form: a link where a directory goes must go first, or writing the header links
  # through it would replace the sources with links to themselves.
  if(IS_SYMLINK ${root}/${folder})
    file(REMOVE ${root}/${folder})
  elseif(IS_DIRECTORY ${root}/${folder} AND NOT ARG_HEADERS)
    file(REMOVE_RECURSE ${root}/${folder})
  endif()
  if(ARG_HEADERS)
    file(MAKE_DIRECTORY ${root}/${folder})
    foreach(header ${ARG_HEADERS})
      file(CREATE_LINK ${GPUA_SRC}/${folder}/${header} ${root}/${folder}/${header} SYMBOLIC)
    endforeach()
  else()
    get_filename_component(parent ${root}/${folder} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${GPUA_SRC}/${folder} ${root}/${folder} SYMBOLIC)
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE ${root})
  else()
    target_include_directories(${target} PUBLIC ${root})
  endif()
endfunction()

# text/: header-only UTF-8 and ASCII helpers, usable by every layer.
if(NOT TARGET gpua_text)
  add_library(gpua_text INTERFACE)
  gpua_expose(gpua_text text)
endif()
