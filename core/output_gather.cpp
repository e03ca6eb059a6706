// -b: hold each host's output, then print identical outputs once under the folded set of hosts
// that produced them (clush -b / dshbak -c). Stdout groups go to stdout, stderr groups to
// stderr. Groups appear in the order of their first host's rank; hosts with no output are not
// listed.
//
// Memory stays bounded: outputs are held in core/held_output.h (kHeldMemory in memory for all
// hosts together, the rest in an unlinked temporary file), each with a running SHA-256. Hosts
// are grouped by digest; when a host finishes with an output another finished host already
// holds, its own copy is dropped, so one copy of each distinct output is printed (and kept,
// once every host with it has finished).
#include <algorithm>
#include <array>
#include <map>
#include <mutex>

#include "core/held_output.h"
#include "core/hostset.h"
#include "core/output.h"
#include "hash/sha256.h"

namespace pdx {

namespace {

class GatherSink final : public OutputSink {
 public:
  GatherSink(std::vector<std::string> labels, Colour colour, OutputFds fds)
      : labels_(std::move(labels)), spill_(kHeldMemory), colour_(colour), fds_(fds) {
    hosts_.reserve(labels_.size());
    for (std::size_t i = 0; i < labels_.size(); ++i) hosts_.emplace_back(spill_);
  }

  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    if (failed()) return;
    Held& held = hosts_[index].streams[stream == Stream::out ? 0 : 1];
    held.sha.update(bytes.data(), bytes.size());
    if (int error = held.bytes.append(bytes)) fail({spill_.name(), error});
  }

  void finished(std::size_t index, const HostResult&) override {
    for (int slot : {0, 1}) {
      Held& held = hosts_[index].streams[slot];
      held.digest = held.sha.hex_digest();
      if (held.bytes.size() == 0) continue;
      std::lock_guard lock(holders_mutex_);
      auto [holder, first] = holders_[slot].try_emplace(held.digest, index);
      if (!first) held.bytes.release();  // identical to what `holder` keeps
    }
  }

  void close() override {
    print(0, fds_.out, kStdoutName);
    print(1, fds_.err, kStderrName);
  }

 private:
  struct Held {
    explicit Held(SpillFile& file) : bytes(file) {}
    HeldOutput bytes;
    Sha256 sha;
    std::string digest;  // set when the host finished
  };
  struct Host {
    explicit Host(SpillFile& file) : streams{Held(file), Held(file)} {}
    std::array<Held, 2> streams;  // stdout, stderr
  };

  void print(int slot, int fd, const std::string& name) {
    // Digest -> ranks of the hosts that printed it; ordered by first rank afterwards.
    std::map<std::string, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < hosts_.size(); ++i) {
      const Held& held = hosts_[i].streams[slot];
      if (held.bytes.size() > 0) groups[held.digest].push_back(i);
    }
    std::vector<std::pair<std::size_t, const std::string*>> order;
    for (const auto& [digest, ranks] : groups) order.emplace_back(ranks.front(), &digest);
    std::sort(order.begin(), order.end());
    for (const auto& [first, digest] : order) {
      const auto& ranks = groups[*digest];
      if (!write(fd, title(ranks, fd), name)) return;
      const HeldOutput& text = hosts_[holders_[slot].at(*digest)].streams[slot].bytes;
      bool ok = true;
      int error =
          text.for_each([&](std::string_view piece) { return ok = write(fd, piece, name); });
      if (error) fail({spill_.name(), error});
      if (!ok || error || (text.back() != '\n' && !write(fd, "\n", name))) return;
    }
  }

  std::string title(const std::vector<std::size_t>& ranks, int fd) const {
    std::vector<std::string> names;
    for (auto r : ranks) names.push_back(labels_[r]);
    std::string title = fold_names(names) + " (" + std::to_string(ranks.size()) + ")";
    std::string rule(std::max<std::size_t>(15, title.size()), '-');
    if (colour_ == Colour::yes && colour_for(fd) == Colour::yes)
      title = "\033[36m" + title + "\033[0m";
    return rule + "\n" + title + "\n" + rule + "\n";
  }

  std::vector<std::string> labels_;
  SpillFile spill_;  // before hosts_: their HeldOutputs give their ranges back to it
  std::vector<Host> hosts_;
  std::mutex holders_mutex_;
  std::array<std::map<std::string, std::size_t>, 2> holders_;  // digest -> host keeping it
  Colour colour_;
  OutputFds fds_;
};

}  // namespace

std::unique_ptr<OutputSink> make_gather_sink(std::vector<std::string> labels, Colour colour,
                                             OutputFds fds) {
  return std::make_unique<GatherSink>(std::move(labels), colour, fds);
}

}  // namespace pdx
