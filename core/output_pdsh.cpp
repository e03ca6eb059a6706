// pdsh's output around another sink: a host's last line is printed as the host sent it, without
// a newline added (pdsh adds none, with or without -N), and pdsh's stderr line for a failed host
// as the host finishes.
#include <array>
#include <mutex>

#include "core/pdsh.h"

namespace pdx {

namespace {

// An unfinished line longer than this goes to the inner sink, which ends it with a newline.
constexpr std::size_t kMaxHeld = 1 << 20;

class PdshSink final : public OutputSink {
 public:
  PdshSink(std::unique_ptr<OutputSink> inner, std::vector<std::string> labels, PdshNames names,
           PdshRcmd rcmd, Prefix prefix, OutputFds fds)
      : inner_(std::move(inner)),
        labels_(std::move(labels)),
        names_(std::move(names)),
        rcmd_(rcmd),
        prefix_(prefix),
        fds_(fds),
        held_(labels_.size()) {
    // The inner sink's write error (stdout's reader gone) is this sink's: it stops the run.
    inner_->on_error([this] {
      if (auto e = inner_->error()) fail(*e);
    });
  }
  ~PdshSink() override { inner_->on_error({}); }

  // The inner sink gets whole lines only; the unfinished rest waits here for more.
  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    Held& held = held_[index][slot(stream)];
    std::lock_guard lock(mutex_);  // with finished()'s own write: lines never interleave
    if (held.spilled) return inner_->output(index, stream, bytes);
    auto nl = bytes.rfind('\n');
    if (nl == std::string_view::npos) {
      held.text.append(bytes);
      if (held.text.size() > kMaxHeld) {
        held.spilled = true;
        inner_->output(index, stream, held.text);
        std::string().swap(held.text);
      }
      return;
    }
    if (!held.text.empty()) inner_->output(index, stream, held.text);
    inner_->output(index, stream, bytes.substr(0, nl + 1));
    held.text.assign(bytes.substr(nl + 1));
  }

  // After the host's last line, so the failure line comes after it.
  void finished(std::size_t index, const HostResult& result) override {
    {
      std::lock_guard lock(mutex_);
      for (int s : {0, 1}) {
        std::string& text = held_[index][s].text;
        if (text.empty()) continue;
        std::string line = prefix_ == Prefix::yes ? labels_[index] + ": " + text : text;
        write(s == 0 ? fds_.out : fds_.err, line, s == 0 ? kStdoutName : kStderrName);
        std::string().swap(text);
      }
      inner_->finished(index, result);
    }
    write(fds_.err, pdsh_failure_lines(names_, labels_[index], result, rcmd_), kStderrName);
  }

  void close() override { inner_->close(); }

 private:
  struct Held {
    std::string text;
    bool spilled = false;
  };
  static int slot(Stream s) { return s == Stream::out ? 0 : 1; }

  std::unique_ptr<OutputSink> inner_;
  std::vector<std::string> labels_;
  PdshNames names_;
  PdshRcmd rcmd_;
  Prefix prefix_;
  OutputFds fds_;
  std::vector<std::array<Held, 2>> held_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<OutputSink> make_pdsh_sink(std::vector<std::string> labels, Prefix prefix,
                                           PdshNames names, PdshRcmd rcmd, OutputFds fds) {
  auto inner = make_prefix_sink(labels, prefix, Colour::no, fds);
  return std::make_unique<PdshSink>(std::move(inner), std::move(labels), std::move(names), rcmd,
                                    prefix, fds);
}

}  // namespace pdx
