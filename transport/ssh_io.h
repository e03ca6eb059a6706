#pragma once
// pdx's recv() and send() for libssh2 sessions, sparing system calls and TCP segments.
// Receiving:
// - RFC 4253 lets a server send lines before its identification line; libssh2 1.10 reads them
//   too, one byte per recv() and without end while they come. pdx drops them itself, bounded as
//   OpenSSH's kex_exchange_identification() bounds them (1024 lines of up to 8192 bytes), and
//   lets the event loop run between every 64 KiB of them: a host that never identifies fails
//   (SocketIo::failure) instead of holding its thread.
// - What one wait's calls may read is bounded too (kReadBudget): a server that floods the
//   socket cannot keep libssh2 reading within one call, past deadlines and Ctrl-C.
// - libssh2 1.10 reads the server's identification line ("SSH-2.0-OpenSSH_9.2p1 ...\r\n") one
//   byte per recv(), ~40 system calls per host: this reads it with two.
// - libssh2 calls recv() again in every call that wants a packet, several times between two
//   waits on the socket. Once recv() has said EAGAIN, or returned less than asked (it took all
//   there was), the others are answered EAGAIN at once until the socket has been waited on
//   (SocketIo::waited()). A wait on the socket reports data already there, so nothing is missed,
//   only found one wait later.
// Sending:
// - Small packets are held, not sent, until the session waits (SshWaiter::wait sends them
//   before the wait can end, and waits for room while some are left) or yields: then they
//   leave together. So the
//   packets libssh2 sends back to back go out in one TCP segment (KEXINIT with ECDH_INIT when
//   the server's KEXINIT is already in, NEWKEYS with SERVICE_REQUEST, the exec request with the
//   EOF), each waking the server once, and close() sends the disconnect message with the FIN.
//   Held bytes count as sent for libssh2; no reply is ever waited for that was not asked.
#include <libssh2.h>
#include <sys/types.h>

#include <cerrno>
#include <cstddef>
#include <string>

namespace pdx {

/// One session's socket state for pdx's recv and send.
struct SocketIo {
  static constexpr std::size_t kHeldMax = 2048;      // more than KEXINIT + ECDH_INIT
  static constexpr std::size_t kLinesBefore = 1024;  // before the identification, as OpenSSH
  static constexpr std::size_t kLineBeforeMax = 8192;
  static constexpr std::size_t kSkipPerCall = 64 * 1024;   // then the event loop runs
  static constexpr std::size_t kReadBudget = 1024 * 1024;  // per wait on the socket

  // Before the identification line: lines dropped, and the length of the one being dropped.
  bool identifying = true;  // the identification line has not started yet
  std::size_t lines_before = 0, line_before_length = 0;
  const char* failure = nullptr;  // why the server's bytes were refused (recv() said EPROTO)
  std::size_t received = 0;       // bytes read since the socket was last waited on

  bool would_block = false;      // recv() found nothing, and the socket was not waited on since
  char line[256];                // the identification line, read whole (libssh2 keeps 256 bytes)
  std::size_t at = 0, size = 0;  // what of it was handed to libssh2, and its length
  char held[kHeldMax];           // sent for libssh2, not yet for the socket
  std::size_t held_size = 0;
  int send_error = 0;  // errno of a failed send of held bytes: every later send fails with it
  // Queue mode, for a jump host's connection carrying many hosts' channels: every send is taken
  // whole and queued, so libssh2 never keeps a partly sent packet of one channel when a call
  // for another comes (libssh2 1.10 would take that call's packet as sent).
  bool queue_all = false;
  std::string queued;
  std::size_t queued_at = 0;  // sent from queued

  /// Whether `length` more bytes fit in what is held.
  bool can_hold(std::size_t length) const { return length <= kHeldMax - held_size; }
  /// The socket was waited on: recv() may find something again.
  void waited() {
    would_block = false;
    received = 0;
  }
  /// The socket was shut down: recv() says so (end of file) instead of EAGAIN, and every send
  /// fails, so that libssh2 freeing a channel or the session never asks to wait.
  void shut_down() {
    would_block = false;
    held_size = 0;
    queued.clear();
    queued_at = 0;
    send_error = EPIPE;
  }
};

/// libssh2's recv and send, as pdx does them (above). Return what LIBSSH2_RECV_FUNC and
/// LIBSSH2_SEND_FUNC return: a count, or -errno.
ssize_t socket_recv(SocketIo& io, int fd, void* buffer, std::size_t length, int flags);
ssize_t socket_send(SocketIo& io, int fd, const void* buffer, std::size_t length, int flags);

/// Sends the held bytes, with `flags` (MSG_MORE: the FIN that follows goes with them). True if
/// none are left held; false if the socket had no room for all, or failed (send_error).
bool send_held(SocketIo& io, int fd, int flags = 0);

/// Switches `io` to queue mode (the held bytes go first).
void queue_every_send(SocketIo& io);
/// Bytes queued in queue mode, not yet sent.
inline std::size_t queued_size(const SocketIo& io) {
  return io.queued.size() - io.queued_at;
}

/// Makes `session` read and write through socket_recv and socket_send, which find their SocketIo
/// in the SessionContext (ssh_session_context.h) that the session's abstract pointer points at. Set
/// before the handshake.
void use_pdx_io(LIBSSH2_SESSION* session);

}  // namespace pdx
