// Streaming output: "host: line". A line is written whole or not at all, so lines of different
// hosts never interleave inside a line (they are written under one lock, whole). Memory per
// host and stream is the unfinished last line, capped at kMaxLine: a longer line is cut into
// pieces of exactly kMaxLine bytes, each printed as a line of its own, prefixed again.
#include <array>
#include <initializer_list>
#include <mutex>

#include "core/output.h"

namespace pdx {

namespace {

constexpr std::size_t kMaxLine = 4 << 20;
constexpr std::size_t kBatch = 64 << 10;  // shorter lines are copied and written together

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
    if (failed()) return;
    std::string& pending = pending_[index][slot(stream)];
    const std::string& prefix = prefixes_[slot(stream)][index];
    std::string lines;
    while (!bytes.empty()) {
      std::size_t room = kMaxLine - pending.size();
      std::size_t nl = bytes.substr(0, room + 1).find('\n');
      if (nl == std::string_view::npos && bytes.size() <= room) {
        pending.append(bytes);
        break;
      }
      std::size_t length = nl == std::string_view::npos ? room : nl;  // a line, or a cut
      std::string_view piece = bytes.substr(0, length);
      bytes.remove_prefix(nl == std::string_view::npos ? length : length + 1);
      if (pending.empty() && length < kBatch) {
        lines.append(prefix).append(piece) += '\n';
        continue;
      }
      emit(stream, {lines});  // written in place, not copied
      lines.clear();
      emit(stream, {prefix, pending, piece, "\n"});
      pending.clear();
    }
    emit(stream, {lines});
  }

  void finished(std::size_t index, const HostResult&) override {
    for (Stream stream : {Stream::out, Stream::err}) {
      std::string& pending = pending_[index][slot(stream)];
      if (pending.empty()) continue;
      emit(stream, {prefixes_[slot(stream)][index], pending, "\n"});
      std::string().swap(pending);
    }
  }

 private:
  static int slot(Stream s) { return s == Stream::out ? 0 : 1; }

  static std::string prefix_for(const std::string& label, Prefix prefix, Colour colour) {
    if (prefix == Prefix::no) return {};
    if (colour == Colour::yes) return "\033[36m" + label + ":\033[0m ";
    return label + ": ";
  }

  // Writes the pieces back to back, as one unit no other host's output can enter.
  void emit(Stream stream, std::initializer_list<std::string_view> pieces) {
    int fd = stream == Stream::out ? fds_.out : fds_.err;
    const std::string& name = stream == Stream::out ? kStdoutName : kStderrName;
    std::lock_guard lock(terminal_);
    for (auto piece : pieces)
      if (!piece.empty() && !write(fd, piece, name)) return;
  }

  std::array<std::vector<std::string>, 2> prefixes_;  // stdout's, stderr's
  std::vector<std::array<std::string, 2>> pending_;   // per host: stdout, stderr
  OutputFds fds_;
  std::mutex terminal_;
};

}  // namespace

std::unique_ptr<OutputSink> make_prefix_sink(std::vector<std::string> labels, Prefix prefix,
                                             Colour colour, OutputFds fds) {
  return std::make_unique<PrefixSink>(std::move(labels), prefix, colour, fds);
}

}  // namespace pdx
