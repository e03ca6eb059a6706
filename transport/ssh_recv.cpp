#include "transport/ssh_recv.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "transport/ssh_call.h"

namespace pdx {
namespace {

ssize_t recv_errno(RecvState& state, int fd, void* buffer, std::size_t length, int flags) {
  ssize_t n = ::recv(fd, buffer, length, flags);
  if (n >= 0) return n;
  if (errno == EAGAIN || errno == EWOULDBLOCK) state.would_block = true;
  return -errno;
}

// A one-byte read is libssh2 reading the identification line (every other read asks for a
// packet's worth): peek at what has arrived, and take up to the line's end in one read,
// leaving the server's next packet in the socket. A line not all there yet is read as before.
// libssh2 takes all of the line within the one libssh2_session_handshake() call that asked for
// its first byte (it stops only at EAGAIN, and this never returns EAGAIN while bytes are left).
LIBSSH2_RECV_FUNC(pdx_recv) {
  RecvState& state = static_cast<SessionContext*>(*abstract)->recv;
  if (state.at < state.size) {
    std::size_t n = std::min(length, state.size - state.at);
    std::memcpy(buffer, state.line + state.at, n);
    state.at += n;
    return static_cast<ssize_t>(n);
  }
  if (state.would_block) return -EAGAIN;
  if (length != 1) return recv_errno(state, socket, buffer, length, flags);
  ssize_t peeked = ::recv(socket, state.line, sizeof state.line, flags | MSG_PEEK);
  const void* end = peeked > 0 ? std::memchr(state.line, '\n', peeked) : nullptr;
  if (!end) return recv_errno(state, socket, buffer, length, flags);
  auto wanted = static_cast<std::size_t>(static_cast<const char*>(end) - state.line) + 1;
  ssize_t n = recv_errno(state, socket, state.line, wanted, flags);
  if (n <= 0) return n;
  state.size = static_cast<std::size_t>(n);
  state.at = 1;
  *static_cast<char*>(buffer) = state.line[0];
  return 1;
}

}  // namespace

void use_pdx_recv(LIBSSH2_SESSION* session) {
  libssh2_session_callback_set(session, LIBSSH2_CALLBACK_RECV, reinterpret_cast<void*>(&pdx_recv));
}

}  // namespace pdx
