// Streaming output: "host: line". A line is written whole or not at all, so lines of different
// hosts never interleave inside a line (they are written under one lock, whole). Memory per
// host and stream is the unfinished last line, capped at kMaxLine: a longer line is cut there
// and continued on the next, prefixed again (so a host holds at most about 2 x kMaxLine).
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <initializer_list>
#include <mutex>

#include "core/output.h"

namespace pdx {

namespace {

constexpr std::size_t kMaxLine = 4 << 20;

class PrefixSink final : public OutputSink {
 public:
  PrefixSink(std::vector<std::string> labels, Prefix prefix, Colour colour, OutputFds fds)
      : pending_(labels.size()), fds_(fds) {
    // stderr is coloured only when it is a terminal too: `2>file` gets no escape codes.
    Colour err_colour = colour == Colour::yes ? colour_for(fds.err) : Colour::no;
    for (auto& label : labels) {
      prefixes_[0].push_back(prefix_for(label, prefix, colour));
      prefixes_[1].push_back(prefix_for(label, prefix, err_colour));
    }
  }

  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    std::string& pending = pending_[index][slot(stream)];
    std::string lines;
    for (;;) {
      auto nl = bytes.find('\n');
      if (nl == std::string_view::npos) break;
      append_line(lines, prefixes_[slot(stream)][index], pending, bytes.substr(0, nl));
      bytes.remove_prefix(nl + 1);
    }
    if (!lines.empty()) emit(stream, {lines});
    pending.append(bytes);
    if (pending.size() >= kMaxLine) {  // cut: written in place, not copied
      emit(stream, {prefixes_[slot(stream)][index], pending, "\n"});
      pending.clear();
    }
  }

  void finished(std::size_t index, const HostResult&) override {
    for (Stream stream : {Stream::out, Stream::err}) {
      std::string& pending = pending_[index][slot(stream)];
      if (pending.empty()) continue;
      std::string lines;
      append_line(lines, prefixes_[slot(stream)][index], pending, {});
      emit(stream, {lines});
      pending.shrink_to_fit();
    }
  }

 private:
  static int slot(Stream s) { return s == Stream::out ? 0 : 1; }

  static std::string prefix_for(const std::string& label, Prefix prefix, Colour colour) {
    if (prefix == Prefix::no) return {};
    if (colour == Colour::yes) return "\033[36m" + label + ":\033[0m ";
    return label + ": ";
  }

  // Appends prefix + pending + tail + '\n' to `lines` and empties `pending`.
  static void append_line(std::string& lines, const std::string& prefix, std::string& pending,
                          std::string_view tail) {
    lines += prefix;
    lines += pending;
    lines += tail;
    lines += '\n';
    pending.clear();
  }

  // Writes the pieces back to back, as one unit no other host's output can enter.
  void emit(Stream stream, std::initializer_list<std::string_view> pieces) {
    std::lock_guard lock(terminal_);
    for (auto piece : pieces) write_all(stream == Stream::out ? fds_.out : fds_.err, piece);
  }

  std::array<std::vector<std::string>, 2> prefixes_;  // stdout's, stderr's
  std::vector<std::array<std::string, 2>> pending_;   // per host: stdout, stderr
  OutputFds fds_;
  std::mutex terminal_;
};

}  // namespace

Colour colour_for(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour && *no_colour) return Colour::no;
  return isatty(fd) ? Colour::yes : Colour::no;
}

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::unique_ptr<OutputSink> make_prefix_sink(std::vector<std::string> labels, Prefix prefix,
                                             Colour colour, OutputFds fds) {
  return std::make_unique<PrefixSink>(std::move(labels), prefix, colour, fds);
}

}  // namespace pdx
