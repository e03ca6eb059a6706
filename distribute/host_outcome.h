#pragma once
// What a distribution command says of each host at its end, and the exit status that follows
// (pdx(1), EXIT STATUS): a folded line per distinct outcome on stderr, as the failure summary
// of commands is.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transport/transport.h"

namespace pdx {

struct HostOutcome {
  int status = 0;    // 0 done / matches, 1 failed / differs, 255 unreachable, 130 interrupted
  std::string what;  // one line, without the host: "match: 3 files, 1.0 KiB"
};

/// The outcome of a host whose command never ran to its end (connect, auth, timeout, Ctrl-C,
/// killed by a signal), as `pdx CMD` would report it; nullopt when it exited with a status.
std::optional<HostOutcome> unfinished(const HostResult& result);

/// "pdx: HOSTS: WHAT\n" per distinct outcome, folded, in order of first rank.
std::string outcome_report(const std::vector<std::string>& labels,
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
