#include "transport/ssh_banner.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pdx {
namespace {

// The identification line, read whole and handed out a byte at a time. libssh2 takes all of it
// within the one libssh2_session_handshake() call that asked for its first byte (it stops only at
// EAGAIN, and this never returns EAGAIN while bytes are left), so a thread's sessions cannot see
// each other's line; `fd` checks it all the same.
struct Line {
  int fd = -1;
  char bytes[256];  // libssh2 keeps at most 256 bytes of the line
  std::size_t at = 0, size = 0;
};

ssize_t recv_errno(int fd, void* buffer, std::size_t length, int flags) {
  ssize_t n = ::recv(fd, buffer, length, flags);
  return n < 0 ? -errno : n;
}

// A one-byte read is libssh2 reading the identification line (every other read asks for a
// packet's worth): peek at what has arrived, and take up to the line's end in one read,
// leaving the server's next packet in the socket. A line not all there yet is read as before.
LIBSSH2_RECV_FUNC(recv_banner_whole) {
  (void)abstract;
  thread_local Line line;
  if (line.fd == socket && line.at < line.size) {
    std::size_t n = std::min(length, line.size - line.at);
    std::memcpy(buffer, line.bytes + line.at, n);
    line.at += n;
    return static_cast<ssize_t>(n);
  }
  if (length != 1) return recv_errno(socket, buffer, length, flags);
  ssize_t peeked = ::recv(socket, line.bytes, sizeof line.bytes, flags | MSG_PEEK);
  const void* end = peeked > 0 ? std::memchr(line.bytes, '\n', peeked) : nullptr;
  if (!end) return recv_errno(socket, buffer, length, flags);
  auto wanted = static_cast<std::size_t>(static_cast<const char*>(end) - line.bytes) + 1;
  ssize_t n = recv_errno(socket, line.bytes, wanted, flags);
  if (n <= 0) return n;
  line.fd = socket;
  line.size = static_cast<std::size_t>(n);
  line.at = 1;
  *static_cast<char*>(buffer) = line.bytes[0];
  return 1;
}

}  // namespace

void read_banner_whole(LIBSSH2_SESSION* session) {
  libssh2_session_callback_set(session, LIBSSH2_CALLBACK_RECV,
                               reinterpret_cast<void*>(&recv_banner_whole));
}

}  // namespace pdx
