#pragma once
// A pipe whose write end a thread fills with given bytes (in pieces, perhaps slowly), then
// closes: the read end stands for pdx's stdin.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace pdx::test {

class PipeFeeder {
 public:
  explicit PipeFeeder(std::string data, std::chrono::milliseconds pause = {}) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe");  // not in children
    read_end_ = fds[0];
    thread_ = std::thread([this, data = std::move(data), pause, w = fds[1]] {
      for (std::size_t at = 0; at < data.size();) {
        ssize_t n = ::write(w, data.data() + at, std::min<std::size_t>(data.size() - at, 65536));
        if (n <= 0) break;
        at += static_cast<std::size_t>(n);
        if (pause.count()) std::this_thread::sleep_for(pause);
      }
      ::close(w);
    });
  }
  ~PipeFeeder() {
    ::close(read_end_);  // a writer blocked on a full pipe gets EPIPE (SIGPIPE is ignored)
    thread_.join();
  }
  PipeFeeder(const PipeFeeder&) = delete;
  PipeFeeder& operator=(const PipeFeeder&) = delete;
  int fd() const { return read_end_; }

 private:
  int read_end_ = -1;
  std::thread thread_;
};

}  // namespace pdx::test
