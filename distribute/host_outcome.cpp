#include "distribute/host_outcome.h"

#include <algorithm>

#include "core/summary.h"

namespace pdx {

std::optional<HostOutcome> unfinished(const HostResult& result) {
  if (result.failure == Failure::none && result.signal.empty()) return std::nullopt;
  return HostOutcome{exit_status_of(result), describe(result)};
}

std::string outcome_report(const std::vector<std::string>& labels,
                           const std::vector<HostOutcome>& outcomes) {
  std::vector<std::string> whats;
  for (const auto& outcome : outcomes) whats.push_back(outcome.what);
  return folded_lines(labels, whats);
}

int outcome_exit_status(const std::vector<HostOutcome>& outcomes) {
  int status = 0;
  for (const auto& outcome : outcomes) status = std::max(status, outcome.status);
  return status;
}

std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

void StderrFirstLine::add(std::string_view bytes) {
  for (char c : bytes) {
    if (at_line_start_ && first_done_) ++more_lines_;
    at_line_start_ = c == '\n';
    if (first_done_) continue;
    if (c == '\n') {
      first_done_ = !first_.empty();  // a leading empty line says nothing
    } else if (first_.size() < kMaxLine) {
      first_ += c;
    }
  }
}

std::string StderrFirstLine::text() const {
  if (first_.empty() && more_lines_ == 0) return {};
  std::string text = printable(first_);
  if (more_lines_ > 0)
    text += " (and " + std::to_string(more_lines_) +
            (more_lines_ == 1 ? " more line)" : " more lines)");
  return text;
}

}  // namespace pdx
