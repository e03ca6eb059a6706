#include "transport/ssh_io.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "transport/ssh_call.h"

namespace pdx {
namespace {

// recv() found nothing: libssh2 returns EAGAIN, and pdx's wait sends what is held.
ssize_t nothing_to_read(SocketIo& io) {
  io.would_block = true;
  return -EAGAIN;
}

ssize_t receive(SocketIo& io, int fd, void* buffer, std::size_t length, int flags) {
  ssize_t n = ::recv(fd, buffer, length, flags);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? nothing_to_read(io) : -errno;
  if (n > 0 && static_cast<std::size_t>(n) < length) io.would_block = true;  // took all there was
  return n;
}

// Sends `parts` (of which the held bytes are the first, if any) with one system call: the
// count sent, or -errno.
ssize_t send_parts(int fd, iovec* parts, std::size_t count, int flags) {
  msghdr message{};
  message.msg_iov = parts;
  message.msg_iovlen = count;
  ssize_t n = ::sendmsg(fd, &message, flags | MSG_NOSIGNAL);
  return n < 0 ? -errno : n;
}

// Forgets the first `n` held bytes, which have been sent.
void drop_held(SocketIo& io, std::size_t n) {
  std::memmove(io.held, io.held + n, io.held_size - n);
  io.held_size -= n;
}

LIBSSH2_RECV_FUNC(pdx_recv) {
  return socket_recv(static_cast<SessionContext*>(*abstract)->io, socket, buffer, length, flags);
}

LIBSSH2_SEND_FUNC(pdx_send) {
  return socket_send(static_cast<SessionContext*>(*abstract)->io, socket, buffer, length, flags);
}

}  // namespace

// A one-byte read is libssh2 reading the identification line (every other read asks for a
// packet's worth): peek at what has arrived, and take up to the line's end in one read,
// leaving the server's next packet in the socket. A line not all there yet is read as before.
// libssh2 takes all of the line within the one libssh2_session_handshake() call that asked for
// its first byte (it stops only at EAGAIN, and this never returns EAGAIN while bytes are left).
ssize_t socket_recv(SocketIo& io, int fd, void* buffer, std::size_t length, int flags) {
  if (io.at < io.size) {
    std::size_t n = std::min(length, io.size - io.at);
    std::memcpy(buffer, io.line + io.at, n);
    io.at += n;
    return static_cast<ssize_t>(n);
  }
  if (io.would_block) return nothing_to_read(io);
  if (length != 1) return receive(io, fd, buffer, length, flags);
  ssize_t peeked = ::recv(fd, io.line, sizeof io.line, flags | MSG_PEEK);
  if (peeked < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return nothing_to_read(io);
  const void* end = peeked > 0 ? std::memchr(io.line, '\n', peeked) : nullptr;
  if (!end) return receive(io, fd, buffer, length, flags);
  auto wanted = static_cast<std::size_t>(static_cast<const char*>(end) - io.line) + 1;
  ssize_t n = receive(io, fd, io.line, wanted, flags);
  if (n <= 0) return n;
  io.size = static_cast<std::size_t>(n);
  io.at = 1;
  *static_cast<char*>(buffer) = io.line[0];
  return 1;
}

// Holds what fits; otherwise sends the held bytes and these together. Held bytes that do not
// all go out make it EAGAIN for these: libssh2 offers them again once the socket has room.
ssize_t socket_send(SocketIo& io, int fd, const void* buffer, std::size_t length, int flags) {
  if (io.send_error) return -io.send_error;
  if (io.can_hold(length)) {
    std::memcpy(io.held + io.held_size, buffer, length);
    io.held_size += length;
    return static_cast<ssize_t>(length);
  }
  iovec parts[2] = {{io.held, io.held_size}, {const_cast<void*>(buffer), length}};
  bool any_held = io.held_size > 0;
  ssize_t n = send_parts(fd, parts + !any_held, 1 + any_held, flags);
  if (n < 0) return n;
  auto sent_held = std::min(static_cast<std::size_t>(n), io.held_size);
  drop_held(io, sent_held);
  n -= static_cast<ssize_t>(sent_held);
  return n > 0 ? n : -EAGAIN;
}

bool send_held(SocketIo& io, int fd, int flags) {
  if (io.held_size == 0) return true;
  if (io.send_error) return false;
  iovec part{io.held, io.held_size};
  ssize_t n = send_parts(fd, &part, 1, flags);
  if (n == -EAGAIN || n == -EWOULDBLOCK) return false;
  if (n < 0) {
    io.send_error = static_cast<int>(-n);
    return false;
  }
  drop_held(io, static_cast<std::size_t>(n));
  return io.held_size == 0;
}

void use_pdx_io(LIBSSH2_SESSION* session) {
  libssh2_session_callback_set(session, LIBSSH2_CALLBACK_RECV, reinterpret_cast<void*>(&pdx_recv));
  libssh2_session_callback_set(session, LIBSSH2_CALLBACK_SEND, reinterpret_cast<void*>(&pdx_send));
}

}  // namespace pdx
