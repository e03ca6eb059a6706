#pragma once
// pdx's recv() for libssh2 sessions, sparing system calls that cannot return anything:
// - libssh2 1.10 reads the server's identification line ("SSH-2.0-OpenSSH_9.2p1 ...\r\n") one
//   byte per recv(), ~40 system calls per host: this reads it with two;
// - libssh2 calls recv() again in every call that wants a packet, several times between two
//   waits on the socket: after one said EAGAIN, the others are answered EAGAIN at once until the
//   socket has been waited on (SshWaiter::wait clears RecvState::would_block). A wait on the
//   socket reports data already there, so nothing is missed, only found one wait later.
#include <libssh2.h>

#include <cstddef>

namespace pdx {

/// One session's state for pdx_recv.
struct RecvState {
  bool would_block = false;      // recv() said EAGAIN, and the socket was not waited on since
  char line[256];                // the identification line, read whole (libssh2 keeps 256 bytes)
  std::size_t at = 0, size = 0;  // what of it was handed to libssh2, and its length
};

/// Makes `session` read through pdx's recv, which finds its RecvState in the SessionContext
/// (ssh_call.h) that the session's abstract pointer points at. Set before the handshake.
void use_pdx_recv(LIBSSH2_SESSION* session);

}  // namespace pdx
