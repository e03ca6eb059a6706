# One object library per layer (ARCHITECTURE.md, Layers), each seeing only the layers it may use.
# A layer's headers are reachable through an include root of its own in the build tree
# (<build>/layers/<name>/<name> -> the source folder), and a layer gets the roots of the layers it
# uses and no other: `#include "core/..."` in archive/ does not compile.
#
#   pdx_layer(NAME [USES lower layers...] [EXCLUDE files...])
function(pdx_layer name)
  cmake_parse_arguments(LAYER "" "" "USES;EXCLUDE" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  foreach(file ${LAYER_EXCLUDE})
    list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/${file})
  endforeach()
  add_library(pdx_${name} OBJECT ${sources})
  set(root ${PROJECT_BINARY_DIR}/layers/${name})
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${root}/${name} SYMBOLIC)
  target_include_directories(pdx_${name} PUBLIC ${root} PRIVATE ${PDX_THIRD_PARTY_INCLUDE_DIRS})
  foreach(lower ${LAYER_USES})
    target_link_libraries(pdx_${name} PUBLIC pdx_${lower})
  endforeach()
  target_link_libraries(pdx_${name} PUBLIC pdx_common PRIVATE pdx_warnings)
endfunction()
