# libarchive linked from its .a file into pdx, pdx-static and the tests (pdx_libarchive), so
# that no host needs libarchive.so: that one brings libxml2, ICU (30 MB of data), nettle, acl and
# lz4, 7 of the 20 shared objects pdx loaded, the most of its page faults at start, and pdx starts
# twice per host and push as the agent. Its xar writer, which pdx never asks for, stays out with
# libxml2 and ICU: archive/static_without_xar.cpp stands in for it, an object on the link line
# itself (in an archive it would come too late to be chosen). libarchive's own dependencies that
# pdx does not use itself (nettle, acl, lz4) come from their .a files too; those it uses (zstd,
# lzma, bz2, z) are linked by name: shared in pdx, as before, and static in pdx-static.

# pdx_static_library(VAR NAME): libNAME.a's path in VAR, or a fatal error naming its -dev package.
function(pdx_static_library var name)
  find_library(PDX_STATIC_LIB_${name} NAMES lib${name}.a)
  if(NOT PDX_STATIC_LIB_${name})
    message(FATAL_ERROR "no lib${name}.a; install its -dev package (scripts/deps.sh)")
  endif()
  set(${var} ${PDX_STATIC_LIB_${name}} PARENT_SCOPE)
endfunction()

# libarchive's dependencies, in pkg-config --static order: those pdx uses itself by name (shared in
# pdx, their .a under pdx-static's -static), the others' .a files.
set(PDX_LIBARCHIVE_BY_NAME zstd lzma bz2 z)
set(PDX_LIBARCHIVE_LIBRARIES)
foreach(name ${LIBARCHIVE_STATIC_LIBRARIES})
  if(name STREQUAL "xml2")
    continue()
  elseif(name IN_LIST PDX_LIBARCHIVE_BY_NAME)
    list(APPEND PDX_LIBARCHIVE_LIBRARIES ${name})
  else()
    pdx_static_library(path ${name})
    list(APPEND PDX_LIBARCHIVE_LIBRARIES ${path})
  endif()
endforeach()

add_library(pdx_without_xar OBJECT archive/static_without_xar.cpp)
target_include_directories(pdx_without_xar PRIVATE ${LIBARCHIVE_INCLUDE_DIRS})
target_link_libraries(pdx_without_xar PRIVATE pdx_warnings)
add_library(pdx_libarchive INTERFACE)
target_link_libraries(pdx_libarchive INTERFACE $<TARGET_OBJECTS:pdx_without_xar>
  ${PDX_LIBARCHIVE_LIBRARIES})
