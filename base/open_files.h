#pragma once
// The process's file descriptors: a socket per host over ssh, a process per host under -R exec.
#include <cstddef>

namespace pdx {

/// Raises the soft limit on open files (1024 by default, which would cap the fan-out near 300)
/// to the hard limit. Called once at start, by main.
void raise_open_file_limit();

/// The soft limit on open files, as it is now.
std::size_t open_file_limit();

/// How many descriptors the process has open now.
std::size_t open_file_count();

}  // namespace pdx
