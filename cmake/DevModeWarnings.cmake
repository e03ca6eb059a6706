# Development mode (after ccache's cmake/DevModeWarnings.cmake): more warnings, all of them
# errors. CI builds with -DPDX_DEV_MODE=ON; a release build is not stopped by a new compiler's
# new warning.
option(PDX_DEV_MODE "Extra warnings, treated as errors (CI builds this way)" OFF)
if(PDX_DEV_MODE)
  target_compile_options(pdx_warnings INTERFACE
    -Werror -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Wextra-semi)
  # GCC 12 reports -Wnull-dereference inside inlined system headers it cannot see are safe
  # (libstdc++'s istreambuf_iterator, Asio's scheduler::compensating_work_started), so there it
  # would only be noise; clang and newer GCCs get it.
  if(NOT (CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13))
    target_compile_options(pdx_warnings INTERFACE -Wnull-dereference)
  endif()
endif()
