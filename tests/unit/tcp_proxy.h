#pragma once
// A TCP proxy on 127.0.0.1 for the tests of pdx's links: it takes one connection and passes its
// bytes on, each way, through a function that may look at them, change them or cut the stream.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <thread>

#include "agent/relay_link.h"

namespace pdx {

// A TCP proxy in front of `port` that hands the connector's bytes through `change` (offset in
// the stream, the bytes read) before passing them on, and the listener's through `back`.
class Proxy {
 public:
  using Change = std::function<void(std::size_t offset, std::string& bytes)>;
  Proxy(
      std::uint16_t port, Change change, Change back = [](std::size_t, std::string&) {})
      : listener_(*relay_listen("127.0.0.1", 0, 0)) {
    thread_ = std::thread([this, port, change = std::move(change), back = std::move(back)] {
      pollfd wait{listener_.fd.get(), POLLIN, 0};
      ::poll(&wait, 1, 5000);  // the listener does not block
      int client = ::accept(listener_.fd.get(), nullptr, nullptr);
      int server = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in to{};
      to.sin_family = AF_INET;
      to.sin_port = htons(port);
      to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      ::connect(server, reinterpret_cast<sockaddr*>(&to), sizeof to);
      std::size_t offset = 0, back_offset = 0;
      for (bool open = true; open;) {
        pollfd p[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
        ::poll(p, 2, 5000);
        if (p[0].revents) open = pass(client, server, change, offset);
        if (open && p[1].revents) open = pass(server, client, back, back_offset);
      }
      ::close(client);
      ::close(server);
    });
  }
  ~Proxy() { thread_.join(); }
  std::uint16_t port() const { return listener_.port; }

 private:
  // What `from` has, through `change` (at `offset` in its stream), on to `to`: false once
  // either end closed, or `change` cut the stream there (left nothing).
  static bool pass(int from, int to, const Change& change, std::size_t& offset) {
    char buffer[4096];
    ssize_t n = ::read(from, buffer, sizeof buffer);
    if (n <= 0) return false;
    std::string bytes(buffer, std::size_t(n));
    change(offset, bytes);
    offset += std::size_t(n);
    return !bytes.empty() && ::send(to, bytes.data(), bytes.size(), MSG_NOSIGNAL) > 0;
  }

  RelayListener listener_;
  std::thread thread_;
};

}  // namespace pdx
