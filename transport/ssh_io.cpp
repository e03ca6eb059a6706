#include "transport/ssh_io.h"

#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "transport/ssh_session_context.h"

namespace pdx {
namespace {

// recv() found nothing: libssh2 returns EAGAIN, and pdx's wait sends what is held.
ssize_t nothing_to_read(SocketIo& io) {
  io.would_block = true;
  return -EAGAIN;
}

// A short read took all there was; a read past the budget lets the event loop run first.
ssize_t receive(SocketIo& io, int fd, void* buffer, std::size_t length, int flags) {
  ssize_t n = ::recv(fd, buffer, length, flags);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? nothing_to_read(io) : -errno;
  io.received += static_cast<std::size_t>(n);
  if (n > 0 && (static_cast<std::size_t>(n) < length || io.received >= SocketIo::kReadBudget))
    io.would_block = true;
  return n;
}

// The server's bytes are not SSH: libssh2 reports a receive error, the session `why`.
ssize_t refuse(SocketIo& io, const char* why) {
  io.failure = why;
  return -EPROTO;
}

// Drops the lines the server sends before its identification line. 1 once that line ("SSH-")
// is next in the socket; else what recv() returns for libssh2, -EAGAIN also after kSkipPerCall
// bytes (the socket, still readable, wakes the session again once the event loop ran).
ssize_t skip_lines_before(SocketIo& io, int fd, int flags) {
  constexpr std::string_view kStart = "SSH-";
  char peeked[4096];
  for (std::size_t skipped = 0; skipped < SocketIo::kSkipPerCall;) {
    ssize_t n = ::recv(fd, peeked, sizeof peeked, flags | MSG_PEEK);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? nothing_to_read(io) : -errno;
    if (n == 0) return 0;  // libssh2 reports the end
    std::string_view seen(peeked, static_cast<std::size_t>(n));
    if (io.line_before_length == 0) {  // a line starts
      bool identification =
          seen.size() >= kStart.size() ? seen.starts_with(kStart) : kStart.starts_with(seen);
      if (identification) {
        io.identifying = false;
        return 1;
      }
      if (++io.lines_before > SocketIo::kLinesBefore)
        return refuse(io, "no SSH identification in the server's first 1024 lines");
    }
    auto newline = seen.find('\n');
    std::size_t take = newline == std::string_view::npos ? seen.size() : newline + 1;
    if (io.line_before_length + take > SocketIo::kLineBeforeMax)
      return refuse(io, "a line of over 8192 bytes before the server's SSH identification");
    ssize_t got = ::recv(fd, peeked, take, flags);
    if (got <= 0) return got < 0 ? -errno : 0;
    bool line_ended = newline != std::string_view::npos && static_cast<std::size_t>(got) == take;
    io.line_before_length = line_ended ? 0 : io.line_before_length + static_cast<std::size_t>(got);
    skipped += static_cast<std::size_t>(got);
  }
  return nothing_to_read(io);
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
// packet's worth): drop the lines before it, peek at what has arrived, and take up to the line's
// end in one read, leaving the server's next packet in the socket. A line not all there yet is read
// as before. libssh2 takes all of the line within the one libssh2_session_handshake() call that
// asked for its first byte (it stops only at EAGAIN, and this never returns EAGAIN while bytes are
// left).
ssize_t socket_recv(SocketIo& io, int fd, void* buffer, std::size_t length, int flags) {
  if (io.at < io.size) {
    std::size_t n = std::min(length, io.size - io.at);
    std::memcpy(buffer, io.line + io.at, n);
    io.at += n;
    return static_cast<ssize_t>(n);
  }
  if (io.would_block) return nothing_to_read(io);
  if (length != 1) return receive(io, fd, buffer, length, flags);
  if (io.identifying) {
    if (ssize_t next = skip_lines_before(io, fd, flags); next != 1) return next;
  }
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
  if (io.queue_all) {
    io.queued.append(static_cast<const char*>(buffer), length);
    return static_cast<ssize_t>(length);
  }
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

void queue_every_send(SocketIo& io) {
  io.queue_all = true;
  io.queued.append(io.held, io.held_size);
  io.held_size = 0;
}

namespace {

bool send_queued(SocketIo& io, int fd, int flags) {
  while (queued_size(io) > 0) {
    if (io.send_error) return false;
    iovec part{io.queued.data() + io.queued_at, queued_size(io)};
    ssize_t n = send_parts(fd, &part, 1, flags);
    if (n == -EAGAIN || n == -EWOULDBLOCK) break;
    if (n < 0) {
      io.send_error = static_cast<int>(-n);
      return false;
    }
    io.queued_at += static_cast<std::size_t>(n);
  }
  if (io.queued_at == io.queued.size()) {
    io.queued.clear();
    io.queued_at = 0;
  } else if (io.queued_at > (1u << 20) && io.queued_at > io.queued.size() / 2) {
    io.queued.erase(0, io.queued_at);
    io.queued_at = 0;
  }
  return queued_size(io) == 0;
}

}  // namespace

bool send_held(SocketIo& io, int fd, int flags) {
  if (io.queue_all) return send_queued(io, fd, flags);
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
