#pragma once
// A child `/bin/sh -c LINE`, as -R exec's commands and ProxyCommand run: in a process group of
// its own (Ctrl-C's kill reaches what it starts), its signal mask cleared and `defaults` (signals
// pdx may ignore or block) at their default actions.
#include <sys/types.h>

#include <initializer_list>
#include <string>

namespace pdx {

/// Starts it with `in`, `out` and `err` as its descriptors 0, 1 and 2 and `envp` as its
/// environment. 0, or an errno value.
int spawn_sh(const std::string& line, int in, int out, int err, char* const envp[],
             std::initializer_list<int> defaults, pid_t& pid);

}  // namespace pdx
