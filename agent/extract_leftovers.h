#pragma once
// The hidden directories in which the agent unpacks `push --extract` before placing it (runs on
// the host; agent/agent.h): named for their owner, so that what a killed agent left (SIGKILL
// allows no clean-up) is known as such by the next extract into that DEST and removed, while an
// agent still unpacking there is left alone.
//
//   DEST/.extract.pdx-HOST-PID-START-N    START: the owner's start time (/proc/PID/stat, clock
//                                         ticks since boot), which a reused PID does not share
#include <sys/types.h>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdx {

/// A process's start time, nullopt when there is no such process (or /proc cannot say).
std::optional<std::uint64_t> process_start(pid_t pid);

/// The name of this process's `n`th hidden directory.
std::string hidden_name(std::uint64_t n);

/// Whether the owner named in a hidden directory's `name` is gone: it is of this form, of this
/// host (a DEST shared with other hosts holds theirs too), and its PID is no longer running or
/// runs a process started at another time.
bool owner_gone(std::string_view name);

/// The names in the directory `dest` (held open) that are hidden directories whose owner is gone.
std::vector<std::string> leftovers_in(int dest);

}  // namespace pdx
