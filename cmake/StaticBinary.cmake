# PDX_STATIC: pdx-static, pdx linked with -static from Debian's static libraries (the -dev
# packages' .a files, scripts/deps.sh), for hosts that do not have pdx's libraries: push uploads
# it as the agent when it sits beside pdx (distribute/remote_agent.h). It links the objects pdx is
# made of (the layers' and pdx_main's): one more link, nothing compiled again.
option(PDX_STATIC "Also build pdx-static, a static pdx for the hosts" OFF)
if(NOT PDX_STATIC)
  file(REMOVE ${CMAKE_CURRENT_BINARY_DIR}/pdx-static)  # one left from before would be deployed
  return()
endif()

# The libraries in pkg-config --static order (each one's own dependencies after it).
pkg_check_modules(PDX_STATIC_DEPS REQUIRED libarchive libssh2 libzstd liblzma libxxhash libcrypto zlib)
# Each one once, at its last place: still after everything that needs it.
set(PDX_STATIC_LIBRARIES ${PDX_STATIC_DEPS_STATIC_LIBRARIES} bz2 genders)  # genders: libc only
list(REVERSE PDX_STATIC_LIBRARIES)
list(REMOVE_DUPLICATES PDX_STATIC_LIBRARIES)
list(REVERSE PDX_STATIC_LIBRARIES)
list(REMOVE_ITEM PDX_STATIC_LIBRARIES xml2)  # for the xar writer only: archive/static_without_xar.cpp
foreach(name ${PDX_STATIC_LIBRARIES})
  find_library(PDX_STATIC_LIB_${name} NAMES lib${name}.a)
  if(NOT PDX_STATIC_LIB_${name})
    message(FATAL_ERROR "PDX_STATIC: no lib${name}.a; install its -dev package (scripts/deps.sh)")
  endif()
endforeach()

add_executable(pdx-static archive/static_without_xar.cpp)
target_include_directories(pdx-static PRIVATE ${LIBARCHIVE_INCLUDE_DIRS})
target_link_libraries(pdx-static PRIVATE pdx_main ${PDX_LAYER_TARGETS} pdx_warnings
  ${PDX_STATIC_LIBRARIES})
target_link_options(pdx-static PRIVATE -static)
install(TARGETS pdx-static RUNTIME DESTINATION lib/pdx)
# Without its symbols (81 MB -> about 3 MB, 1.3 MB gzip-compressed as it travels): it is what push
# sends to every host, and nobody debugs the agent there from it (pdx itself keeps its symbols).
add_custom_command(TARGET pdx-static POST_BUILD COMMAND ${CMAKE_STRIP} --strip-all
  $<TARGET_FILE:pdx-static> VERBATIM)
