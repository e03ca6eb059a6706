# Warnings and sanitizers as an INTERFACE target (after ccache's cmake/StandardWarnings.cmake).
add_library(pdx_warnings INTERFACE)
target_compile_options(pdx_warnings INTERFACE -Wall -Wextra -Wpedantic)
if(PDX_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
# GCC 12 reports -Wrestrict on std::string concatenations, which cannot overlap (GCC bug 105651,
# fixed in 13): off there, so that a real warning is not lost among them.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(pdx_warnings INTERFACE -Wno-restrict)
endif()
