#pragma once
// What pdx preflight prints: each check one line per outcome, hosts with the same outcome and
// value folded (core/hostset.h's fold_names), as `-b` folds output, so that the odd host out
// stands out:
//
//   ok   torch 2.3.1+cu121, CUDA 12.1, NCCL 2.20.5: node[01-63]
//   FAIL torch 2.1.0: node17 (node[01-16,18-64]: 2.3.1)
//   n/a  GPUs (no nvidia-smi): node[01-64]
//
// or, with --json, one object per check and host.
#include <optional>
#include <string>
#include <vector>

namespace pdx {

enum class Outcome { ok, fail, na };

/// One check's word on one host: the value shown (the same words on hosts that agree) and a note
/// after the hosts ("(node[01-16]: 2.3.1)").
struct Verdict {
  Outcome outcome = Outcome::ok;
  std::string value;
  std::string note;
  std::string detail{};  // this host's own figures, in --json only (--net, --need-disk)
};

/// One check across the hosts: a verdict per host by rank; nullopt where the check has nothing to
/// say (a host not reached, the master's port on the other hosts).
struct CheckResult {
  std::string name;
  std::vector<std::optional<Verdict>> hosts;
};

/// The lines of every check, in order: "TAG NAME[ VALUE]: HOSTS[ NOTE]\n" per distinct verdict,
/// in order of first rank.
std::string check_lines(const std::vector<std::string>& labels,
                        const std::vector<CheckResult>& checks);

/// One JSON object a line per check and host with a verdict:
/// {"check":NAME,"host":LABEL,"outcome":"ok"|"fail"|"n/a","value":...,"note":...,
/// "detail":null|...}.
std::string check_json(const std::vector<std::string>& labels,
                       const std::vector<CheckResult>& checks);

/// Whether any verdict is a failure.
bool any_failed(const std::vector<CheckResult>& checks);

/// A check whose hosts must agree: each host's value (nullopt: the thing checked is absent there,
/// shown as `absent`, e.g. "(not installed)"). The most common value (the first rank's on a tie)
/// passes; the others fail, noting the hosts of the common one. When no host has a value: n/a,
/// `absent`. `present`: which hosts the check applies to (all when empty).
CheckResult agreement(std::string name, const std::vector<std::optional<std::string>>& values,
                      const std::string& absent, const std::vector<std::string>& labels,
                      const std::vector<bool>& present = {});

}  // namespace pdx
