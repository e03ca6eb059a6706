// What every sink shares: checked writes, the first write error, and the colour decision.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/output.h"

namespace pdx {

bool OutputError::broken_pipe() const {
  return error == EPIPE;
}

std::string OutputError::message() const {
  return "cannot write to " + name + ": " + std::strerror(error);
}

void OutputSink::on_error(std::function<void()> stop) {
  std::lock_guard lock(error_mutex_);
  stop_ = std::move(stop);
}

std::optional<OutputError> OutputSink::error() const {
  std::lock_guard lock(error_mutex_);
  return error_;
}

bool OutputSink::write(int fd, std::string_view data, const std::string& name) {
  if (failed()) return false;
  int error = write_all(fd, data);
  if (error == 0) return true;
  fail({name, error});
  return false;
}

void OutputSink::fail(OutputError e) {
  std::function<void()> stop;
  {
    std::lock_guard lock(error_mutex_);
    if (error_) return;
    error_ = std::move(e);
    failed_ = true;
    stop = stop_;
  }
  if (stop) stop();  // outside the lock: stopping may call back into other sinks' code
}

Colour colour_for(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour && *no_colour) return Colour::no;
  return isatty(fd) ? Colour::yes : Colour::no;
}

int write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;  // write(2) of a non-empty buffer never returns 0 on a file
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

}  // namespace pdx
