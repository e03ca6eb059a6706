#pragma once
// What a distribution command says of each host at its end, and the exit status that follows
// (pdx(1), EXIT STATUS): a folded line per distinct outcome on stderr, as the failure summary
// of commands is; or, with --json, one JSON object per host per line on stdout (pdx(1),
// Progress and JSON). push, pull and verify all report through here.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transport/transport.h"

namespace pdx {

/// `items` not yet in `list` added to it, in order, each once: the lines of what could not be
/// read here, which several hosts' streams may each report.
void add_once(std::vector<std::string>& list, std::vector<std::string> items);

/// The members of a JSON object, written as they are added: `"key":value`, every string
/// escaped by core/json.h, so what a host sent (names, messages) is safe in them.
class JsonFields {
 public:
  JsonFields& number(std::string_view key, std::int64_t value);
  JsonFields& boolean(std::string_view key, bool value);
  JsonFields& string(std::string_view key, std::string_view value);
  /// null for an empty `value`.
  JsonFields& string_or_null(std::string_view key, std::string_view value);
  JsonFields& strings(std::string_view key, const std::vector<std::string>& values);
  JsonFields& objects(std::string_view key, const std::vector<JsonFields>& values);
  /// The members of `other`, after these.
  JsonFields& append(const JsonFields& other);
  /// "{...}"
  std::string object() const { return "{" + members_ + "}"; }

 private:
  JsonFields& member(std::string_view key, std::string_view json);
  std::string members_;
};

struct HostOutcome {
  int status = 0;      // 0 done / matches, 1 failed / differs, 255 unreachable, 130 interrupted
  std::string what;    // one line, without the host: "match: 3 files, 1.0 KiB"
  std::string error;   // why the host failed as a whole (raw, as it came), empty when it did not
  JsonFields figures;  // the command's own members of the host's JSON line ("bytes":...)
};

/// The outcome of a host whose command never ran to its end (connect, auth, timeout, Ctrl-C,
/// killed by a signal), as `pdx CMD` would report it; nullopt when it exited with a status.
std::optional<HostOutcome> unfinished(const HostResult& result);

/// Report lines "pdx: HOSTS: TEXT\n": hosts with the same text folded into one host set, lines in
/// the order their text first came. A host may have several lines (push: one per failed file).
class FoldedReport {
 public:
  void add(const std::string& label, std::string text);
  std::string str() const;

 private:
  std::vector<std::string> labels_, texts_;  // one pair per line added
};

/// "pdx: HOSTS: WHAT\n" per distinct outcome, folded, in order of first rank.
std::string outcome_report(const std::vector<std::string>& labels,
                           const std::vector<HostOutcome>& outcomes);

/// One line per host, by rank: {"host":LABEL,"status":N,FIGURES...,"error":null|"..."}.
std::string outcome_json(const std::vector<std::string>& labels,
                         const std::vector<HostOutcome>& outcomes);

/// The largest status of the outcomes (0 for none).
int outcome_exit_status(const std::vector<HostOutcome>& outcomes);

/// A name or message from a host made safe to print on one line: control bytes and backslashes
/// written as C escapes (\n, \t, \\, \x1b).
std::string printable(std::string_view text);

/// Keeps the first line of what a host's command writes on stderr (bounded), and how many lines
/// there were: its first complaint is what pdx reports for it.
class StderrFirstLine {
 public:
  void add(std::string_view bytes);
  /// The first line, printable, with " (and N more lines)" when there were others; empty when
  /// nothing was written.
  std::string text() const;

 private:
  static constexpr std::size_t kMaxLine = 400;
  std::string first_;
  bool first_done_ = false;
  std::size_t more_lines_ = 0;
  bool at_line_start_ = true;
};

}  // namespace pdx
