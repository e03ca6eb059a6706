#pragma once
// What libssh2's callbacks for one session share: pdx's recv and send (ssh_io) and
// keyboard-interactive's answer (ssh_auth) find it through the session's abstract pointer,
// which the session's SshWaiter (ssh_call) sets.
#include <string>

#include "transport/ssh_io.h"

namespace pdx {

/// What libssh2's callbacks for one session share; the session's abstract pointer points at it.
struct SessionContext {
  SocketIo io;                            // pdx's recv and send (ssh_io.h)
  const std::string* password = nullptr;  // keyboard-interactive's answer (ssh_auth.cpp)
};

}  // namespace pdx
