#include "distribute/push/push_report.h"

#include <algorithm>

#include "archive/size.h"
#include "base/error.h"
#include "core/summary.h"

namespace pdx {

namespace {

bool complete(const PushedHost& o) {
  return o.result.failure == Failure::none && o.error.empty() && o.failed.empty();
}

std::string written_text(const PushedHost& o) {
  if (o.up_to_date) return "up to date";
  std::uint64_t n = o.written.files;
  return human_size(o.written.bytes) + " in " + std::to_string(n) + (n == 1 ? " file" : " files");
}

// Its exit-style status, its error as a whole, and its figures for --json.
HostOutcome outcome_of(const PushedHost& o) {
  HostOutcome outcome;
  if (o.result.failure != Failure::none) {
    outcome.status = exit_status_of(o.result);
    outcome.error = describe(o.result);
  } else if (!complete(o)) {
    outcome.status = kExitFailure;
    outcome.error = o.error;
  }
  std::vector<JsonFields> failed;
  for (const auto& f : o.failed)
    failed.push_back(JsonFields().string("path", f.path).string("reason", f.reason));
  outcome.figures.number("files", static_cast<std::int64_t>(o.written.files))
      .number("bytes", static_cast<std::int64_t>(o.written.bytes))
      .boolean("up_to_date", o.up_to_date)
      .objects("failed", failed);
  return outcome;
}

std::string local_errors(const PushReport& report) {
  std::string err;
  for (const auto& e : report.local) err += "pdx: error: " + e + "\n";
  return err;
}

}  // namespace

PushText push_text(const std::vector<std::string>& labels, const PushReport& report) {
  FoldedReport done, failed;
  for (std::size_t i = 0; i < report.hosts.size(); ++i) {
    const PushedHost& o = report.hosts[i];
    if (o.result.failure != Failure::none) failed.add(labels[i], describe(o.result));
    failed.add(labels[i], o.error);
    for (const auto& f : o.failed) failed.add(labels[i], f.reason + " (" + f.path + ")");
    if (complete(o)) done.add(labels[i], written_text(o));
  }
  return {done.str(), failed.str() + local_errors(report)};
}

PushText push_json(const std::vector<std::string>& labels, const PushReport& report) {
  std::vector<HostOutcome> outcomes;
  for (const auto& o : report.hosts) outcomes.push_back(outcome_of(o));
  return {outcome_json(labels, outcomes), local_errors(report)};
}

int push_exit_status(const PushReport& report) {
  int status = report.local.empty() ? kExitOk : kExitFailure;
  for (const auto& o : report.hosts) status = std::max(status, outcome_of(o).status);
  return status;
}

}  // namespace pdx
