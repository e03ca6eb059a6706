#pragma once
// Pipes widened to hold a data frame of the agent protocol (1 MiB), within a budget.
//
// Linux charges a pipe's buffer to the user who made it. Past fs/pipe-user-pages-soft (16384
// pages, 64 MiB, by default) an unprivileged user's new pipes get 2 pages (8 KiB) and none can be
// widened, in every process of that user, until some are closed. pdx holds one widened pipe per
// stream: a push or sync has a stream per group of hosts (hosts that need the same files) in a
// wave of -f hosts, so up to 64 at the default -f, 64 MiB, the user's whole allowance (measured:
// 64 widened pipes, then every new pipe of the user holds 8 KiB). So a process holds at most a
// quarter of the soft limit in widened pipes at once (16 of 1 MiB by default); the pipes beyond
// keep the kernel's 64 KiB. An agent widens one (sshd's pipe to it; a relay's own pipe besides).
#include <cstddef>

namespace pdx {

/// Makes the pipe `fd` hold a data frame's worth (kDataChunk, 1 MiB, the most an unprivileged
/// process may ask for by default): its writer blocks less often, its reader takes more at a
/// time. Not when this process already holds wide_pipes_at_most() widened pipes still open. Where
/// `fd` is not a pipe, or the kernel refuses, nothing changes. From any thread.
void widen_pipe(int fd);

/// How many widened pipes a process holds at most at once: a quarter of the user's soft limit,
/// in pipes of 1 MiB (16 by default); no bound when the limit is off (0).
std::size_t wide_pipes_at_most();

}  // namespace pdx
