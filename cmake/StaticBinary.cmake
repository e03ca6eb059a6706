# PDX_STATIC: pdx-static, pdx linked with -static from Debian's static libraries (the -dev
# packages' .a files, scripts/deps.sh), for hosts that do not have pdx's libraries: push uploads
# it as the agent when it sits beside pdx (distribute/remote_agent.h). It links the objects pdx is
# made of (the layers' and pdx_main's): one more link, nothing compiled again.
option(PDX_STATIC "Also build pdx-static, a static pdx for the hosts" OFF)
if(NOT PDX_STATIC)
  file(REMOVE ${CMAKE_CURRENT_BINARY_DIR}/pdx-static)  # one left from before would be deployed
  return()
endif()

# The libraries in pkg-config --static order (each one's own dependencies after it), libarchive's
# own before them (pdx_libarchive: cmake/StaticLibarchive.cmake).
pkg_check_modules(PDX_STATIC_DEPS REQUIRED libssh2 libzstd liblzma libxxhash libcrypto zlib)
# Each one once, at its last place: still after everything that needs it.
set(PDX_STATIC_LIBRARIES ${PDX_STATIC_DEPS_STATIC_LIBRARIES} bz2 genders)  # genders: libc only
list(REVERSE PDX_STATIC_LIBRARIES)
list(REMOVE_DUPLICATES PDX_STATIC_LIBRARIES)
list(REVERSE PDX_STATIC_LIBRARIES)
set(PDX_STATIC_PATHS)
foreach(name ${PDX_STATIC_LIBRARIES})
  pdx_static_library(path ${name})
  list(APPEND PDX_STATIC_PATHS ${path})
endforeach()

add_executable(pdx-static)
target_link_libraries(pdx-static PRIVATE pdx_main ${PDX_LAYER_TARGETS} pdx_warnings pdx_libarchive
  ${PDX_STATIC_PATHS})
target_link_options(pdx-static PRIVATE -static)
install(TARGETS pdx-static RUNTIME DESTINATION lib/pdx)
# Without its symbols (119 MB -> 11 MB, 5.0 MB gzip-compressed as it travels): it is what push
# sends to a host that cannot run pdx, and nobody debugs the agent there from it (pdx itself keeps its symbols).
add_custom_command(TARGET pdx-static POST_BUILD COMMAND ${CMAKE_STRIP} --strip-all
  $<TARGET_FILE:pdx-static> VERBATIM)
