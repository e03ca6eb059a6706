#include "distribute/sync/sync_report.h"

#include <algorithm>

#include "archive/size.h"
#include "base/error.h"
#include "base/strings.h"
#include "core/summary.h"
#include "distribute/agent_start.h"

namespace pdx {

namespace {

std::string files(std::uint64_t n) {
  return std::to_string(n) + (n == 1 ? " file" : " files");
}

}  // namespace

bool sync_complete(const SyncedHost& h) {
  return h.result.failure == Failure::none && h.error.empty() && h.failed.empty();
}

PushText sync_text(const std::vector<std::string>& labels, const SyncReport& report) {
  std::vector<std::string> out_labels, outs, err_labels, errs;
  auto say = [](std::vector<std::string>& to_labels, std::vector<std::string>& to,
                const std::string& label, std::string what) {
    to_labels.push_back(label);
    to.push_back(std::move(what));
  };
  for (std::size_t i = 0; i < report.hosts.size(); ++i) {
    const SyncedHost& h = report.hosts[i];
    if (h.result.failure != Failure::none) say(err_labels, errs, labels[i], describe(h.result));
    if (!h.error.empty()) say(err_labels, errs, labels[i], h.error);
    for (const auto& f : h.failed) say(err_labels, errs, labels[i], f.reason + " (" + f.path + ")");
    if (report.dry_run) {
      auto would = [&](const char* verb, const std::vector<std::string>& names) {
        for (const auto& n : names)
          say(out_labels, outs, labels[i], verb + (n.empty() ? std::string("DEST") : n));
      };
      would("would patch ", h.to_patch);
      would("would send ", h.to_send);
      would("would delete ", h.to_delete);
      if (sync_complete(h) && h.to_patch.empty() && h.to_send.empty() && h.to_delete.empty())
        say(out_labels, outs, labels[i], "up to date");
      continue;
    }
    if (!sync_complete(h)) continue;
    std::vector<std::string> parts;
    if (h.patched.files)
      parts.push_back(files(h.patched.files) + " patched (" + human_size(h.patched.bytes) + ", " +
                      human_size(h.delta_bytes) + " sent)");
    if (h.written.files)
      parts.push_back(files(h.written.files) + " sent whole (" + human_size(h.written.bytes) + ")");
    if (h.deleted) parts.push_back(std::to_string(h.deleted) + " deleted");
    // A source that could not be read here (or changed while read) was sent to no host.
    const char* none = report.local.empty() ? "up to date" : "nothing sent";
    say(out_labels, outs, labels[i], parts.empty() ? none : join(parts, ", "));
  }
  PushText text{folded_lines(out_labels, outs), folded_lines(err_labels, errs)};
  text.err += report.warnings;
  if (!report.called_off.empty()) text.err += "pdx: warning: " + report.called_off + "\n";
  for (const auto& line : report.bridged_heads) text.err += "pdx: warning: " + line + "\n";
  std::vector<std::string> replaced;
  for (std::size_t i = 0; i < report.hosts.size(); ++i)
    if (report.hosts[i].agent_replaced) replaced.push_back(labels[i]);
  text.err += agent_replaced_warning(replaced);
  std::vector<std::pair<std::string, std::string>> statics;
  for (std::size_t i = 0; i < report.hosts.size(); ++i)
    if (report.hosts[i].agent_static)
      statics.emplace_back(labels[i], *report.hosts[i].agent_static);
  text.err += agent_static_warning(statics);
  for (std::size_t i = 0; i < report.hosts.size(); ++i) {  // a failed host's own line says it
    const SyncedHost& h = report.hosts[i];
    if (!h.forwarded.empty() && h.result.failure == Failure::none && h.error.empty())
      text.err += "pdx: warning: " + labels[i] + ": " + h.forwarded + "\n";
  }
  for (const auto& e : report.local) text.err += "pdx: error: " + e + "\n";
  return text;
}

int sync_exit_status(const SyncReport& report) {
  int status = report.local.empty() ? kExitOk : kExitFailure;
  for (const auto& h : report.hosts) {
    if (h.result.failure != Failure::none)
      status = std::max(status, exit_status_of(h.result));
    else if (!sync_complete(h))
      status = std::max(status, int(kExitFailure));
  }
  return status;
}

}  // namespace pdx
