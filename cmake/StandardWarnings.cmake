# Warnings and sanitizers as an INTERFACE target (after ccache's cmake/StandardWarnings.cmake).
add_library(pdx_warnings INTERFACE)
target_compile_options(pdx_warnings INTERFACE -Wall -Wextra -Wpedantic)
if(PDX_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
