// -b: keep each host's whole output, then print identical outputs once under the folded set of
// hosts that produced them (clush -b / dshbak -c). Stdout groups go to stdout, stderr groups to
// stderr. Groups appear in the order of their first host's rank; hosts with no output are not
// listed. Memory holds every host's output: that is what gathering means.
#include <algorithm>
#include <array>
#include <map>
#include <mutex>

#include "core/hostset.h"
#include "core/output.h"

namespace pdx {

namespace {

class GatherSink final : public OutputSink {
 public:
  GatherSink(std::vector<std::string> labels, Colour colour, OutputFds fds)
      : labels_(std::move(labels)), outputs_(labels_.size()), colour_(colour), fds_(fds) {}

  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    outputs_[index][stream == Stream::out ? 0 : 1].append(bytes);
  }

  void finished(std::size_t, const HostResult&) override {}

  void close() override {
    print(0, fds_.out);
    print(1, fds_.err);
  }

 private:
  void print(int slot, int fd) {
    // Output text -> ranks of the hosts that printed it; ordered by first rank afterwards.
    std::map<std::string_view, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      const std::string& text = outputs_[i][slot];
      if (!text.empty()) groups[text].push_back(i);
    }
    std::vector<std::pair<std::size_t, std::string_view>> order;
    for (const auto& [text, ranks] : groups) order.emplace_back(ranks.front(), text);
    std::sort(order.begin(), order.end());
    for (const auto& [first, text] : order) {
      const auto& ranks = groups[text];
      std::vector<std::string> names;
      for (auto r : ranks) names.push_back(labels_[r]);
      std::string title = fold_names(names) + " (" + std::to_string(ranks.size()) + ")";
      std::string rule(std::max<std::size_t>(15, title.size()), '-');
      if (colour_ == Colour::yes && colour_for(fd) == Colour::yes)
        title = "\033[36m" + title + "\033[0m";
      std::string block = rule + "\n" + title + "\n" + rule + "\n" + std::string(text);
      if (block.back() != '\n') block += '\n';
      write_all(fd, block);
    }
  }

  std::vector<std::string> labels_;
  std::vector<std::array<std::string, 2>> outputs_;  // per host: stdout, stderr
  Colour colour_;
  OutputFds fds_;
};

}  // namespace

std::unique_ptr<OutputSink> make_gather_sink(std::vector<std::string> labels, Colour colour,
                                             OutputFds fds) {
  return std::make_unique<GatherSink>(std::move(labels), colour, fds);
}

}  // namespace pdx
