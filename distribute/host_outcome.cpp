#include "distribute/host_outcome.h"

#include <algorithm>

#include "core/json.h"
#include "core/summary.h"

namespace pdx {

void add_once(std::vector<std::string>& list, std::vector<std::string> items) {
  for (auto& item : items)
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(std::move(item));
}

JsonFields& JsonFields::member(std::string_view key, std::string_view json) {
  if (!members_.empty()) members_ += ',';
  members_ += json_string(key);
  members_ += ':';
  members_ += json;
  return *this;
}

JsonFields& JsonFields::number(std::string_view key, std::int64_t value) {
  return member(key, std::to_string(value));
}

JsonFields& JsonFields::boolean(std::string_view key, bool value) {
  return member(key, value ? "true" : "false");
}

JsonFields& JsonFields::string(std::string_view key, std::string_view value) {
  return member(key, json_string(value));
}

JsonFields& JsonFields::string_or_null(std::string_view key, std::string_view value) {
  return value.empty() ? member(key, "null") : string(key, value);
}

JsonFields& JsonFields::strings(std::string_view key, const std::vector<std::string>& values) {
  std::string array = "[";
  for (const auto& value : values) array += (array.size() > 1 ? "," : "") + json_string(value);
  return member(key, array + "]");
}

JsonFields& JsonFields::objects(std::string_view key, const std::vector<JsonFields>& values) {
  std::string array = "[";
  for (const auto& value : values) array += (array.size() > 1 ? "," : "") + value.object();
  return member(key, array + "]");
}

JsonFields& JsonFields::append(const JsonFields& other) {
  if (!members_.empty() && !other.members_.empty()) members_ += ',';
  members_ += other.members_;
  return *this;
}

std::optional<HostOutcome> unfinished(const HostResult& result) {
  if (result.failure == Failure::none && result.signal.empty()) return std::nullopt;
  std::string what = describe(result);
  return HostOutcome{exit_status_of(result), what, what, {}};
}

void FoldedReport::add(const std::string& label, std::string text) {
  labels_.push_back(label);
  texts_.push_back(std::move(text));
}

std::string FoldedReport::str() const {
  return folded_lines(labels_, texts_);
}

std::string outcome_report(const std::vector<std::string>& labels,
                           const std::vector<HostOutcome>& outcomes) {
  FoldedReport report;
  for (std::size_t i = 0; i < outcomes.size(); ++i) report.add(labels[i], outcomes[i].what);
  return report.str();
}

std::string outcome_json(const std::vector<std::string>& labels,
                         const std::vector<HostOutcome>& outcomes) {
  std::string lines;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    JsonFields line;
    line.string("host", labels[i]).number("status", outcomes[i].status);
    line.append(outcomes[i].figures).string_or_null("error", outcomes[i].error);
    lines += line.object() + "\n";
  }
  return lines;
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
