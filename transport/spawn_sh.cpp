#include "transport/spawn_sh.h"

#include <spawn.h>

#include <csignal>

namespace pdx {

int spawn_sh(const std::string& line, int in, int out, int err, char* const envp[],
             std::initializer_list<int> defaults, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t to_default, none;
  sigemptyset(&to_default);
  for (int s : defaults) sigaddset(&to_default, s);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &to_default);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::string sh = "/bin/sh", dash_c = "-c", command = line;
  char* argv[] = {sh.data(), dash_c.data(), command.data(), nullptr};
  int rc = posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}

}  // namespace pdx
