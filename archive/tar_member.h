#pragma once
// What a path given to pull (and rpdcp) stands for in the tar stream a host sends back, as
// `tar -C DIR ./NAME` takes it: the host's tar over ssh (distribute/remote_commands) and its
// agent's --send (agent/agent_send) name their members alike.
#include <string>

#include "base/result.h"

namespace pdx {

struct TarMember {
  std::string dir;   // "." for a relative REMOTE without a '/', "/" at the top
  std::string name;  // "." for a directory's contents (REMOTE ending in '/', or "/")
};

/// REMOTE's directory and name; an Error for "" or a REMOTE ending in "..".
Result<TarMember> tar_member(std::string remote);

}  // namespace pdx
