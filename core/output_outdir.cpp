// --outdir DIR: each host's stdout and stderr in DIR/HOST.out and DIR/HOST.err, written as the
// bytes arrive (nothing held in memory). Both files exist for every host, empty or not. A file
// that cannot be opened is a warning (that host's output is lost); a failed write to one ends
// the run, naming the file.
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/error.h"
#include "core/output.h"

namespace pdx {

namespace {

class OutdirSink final : public OutputSink {
 public:
  OutdirSink(std::vector<std::string> labels, std::string dir)
      : labels_(std::move(labels)), dir_(std::move(dir)), fds_(labels_.size(), {-1, -1}) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) throw FatalError("--outdir " + dir_ + ": " + ec.message());
  }

  ~OutdirSink() override { close(); }

  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    int f = fd(index, stream);
    if (f >= 0) write(f, bytes, path(index, stream));
  }

  void finished(std::size_t index, const HostResult&) override {
    for (Stream s : {Stream::out, Stream::err}) {
      int& f = slot(index, s);
      if (f == -1) f = open_file(index, s);
      if (f >= 0 && ::close(f) != 0) fail({path(index, s), errno});  // NFS reports late
      f = -2;                                                        // done: never reopened
    }
  }

  void close() override {
    for (auto& pair : fds_)
      for (int& f : pair)
        if (f >= 0) ::close(std::exchange(f, -2));
  }

 private:
  int& slot(std::size_t index, Stream s) { return fds_[index][s == Stream::out ? 0 : 1]; }

  int fd(std::size_t index, Stream s) {
    int& f = slot(index, s);
    if (f == -1) f = open_file(index, s);
    return f;
  }

  std::string path(std::size_t index, Stream s) const {
    return dir_ + "/" + labels_[index] + (s == Stream::out ? ".out" : ".err");
  }

  int open_file(std::size_t index, Stream s) {
    std::string name = path(index, s);
    int f = ::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f >= 0) return f;
    std::fprintf(stderr, "pdx: warning: %s: %s\n", name.c_str(), std::strerror(errno));
    return -2;
  }

  std::vector<std::string> labels_;
  std::string dir_;
  std::vector<std::array<int, 2>> fds_;  // -1: not opened yet, -2: closed for good
};

}  // namespace

std::unique_ptr<OutputSink> make_outdir_sink(std::vector<std::string> labels, std::string dir) {
  return std::make_unique<OutdirSink>(std::move(labels), std::move(dir));
}

}  // namespace pdx
