#pragma once
// Where a host's warm connection is found: ssh_config's ControlMaster, ControlPersist and
// ControlPath for it, the path's %-tokens expanded as ssh(1) does, and the checks made before
// a socket there is trusted (its directory the user's alone, not reached through a symlink).
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "base/fd.h"
#include "base/result.h"

namespace pdx {

/// ControlPath's default when ControlMaster and ControlPersist are set without it.
constexpr const char* kDefaultControlPath = "~/.ssh/pdx-%C";

/// What ssh_config and the command line say of one host's warm connection.
struct ControlTarget {
  bool enabled = false;               // ControlMaster yes/auto and ControlPersist set
  std::chrono::seconds persist{0};    // 0: for as long as the holder is not told to exit
  std::string path;                   // ControlPath as written
  std::string hostname, user, alias;  // %h, %r, %n
  int port = 22;                      // %p
  std::string home, local_user;       // ~ and %d, %u
};

/// `target.path` with `~` and `%h %p %r %n %u %d %l %L %C %i %%` expanded (%C: the hex SHA-1
/// of %l%h%p%r, as ssh(1) before 9.6). Error: an unknown token.
Result<std::string> expand_control_path(const ControlTarget& target);

/// Checks that `path`'s directory is a directory (not a symlink) owned by this user and that
/// no one else may enter (mode 0700 or tighter), and that `path`, if it exists, is a socket of
/// this user's. Error: one line saying what is wrong.
Result<void> check_control_path(const std::string& path);

/// Connects to the holder at `path`; an empty Fd if none answers there. A socket file that no
/// one answers on (a holder killed) is removed. A connection whose peer is another user is
/// refused.
Fd connect_control(const std::string& path);

/// The uid of a Unix socket's peer; nullopt if not known.
std::optional<unsigned> peer_uid(int fd);

}  // namespace pdx
