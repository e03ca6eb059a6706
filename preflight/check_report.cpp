#include "preflight/check_report.h"

#include <algorithm>
#include <cstddef>
#include <map>

#include "core/hostset.h"
#include "core/json.h"

namespace pdx {

namespace {

const char* tag(Outcome o) {
  switch (o) {
    case Outcome::ok:
      return "ok  ";
    case Outcome::fail:
      return "FAIL";
    case Outcome::na:
      return "n/a ";
  }
  return "?   ";
}

const char* json_outcome(Outcome o) {
  return o == Outcome::ok ? "ok" : o == Outcome::fail ? "fail" : "n/a";
}

bool same(const Verdict& a, const Verdict& b) {
  return a.outcome == b.outcome && a.value == b.value && a.note == b.note;
}

}  // namespace

std::string check_lines(const std::vector<std::string>& labels,
                        const std::vector<CheckResult>& checks) {
  std::string out;
  for (const CheckResult& check : checks) {
    std::vector<const Verdict*> distinct;
    std::vector<std::vector<std::string>> members;
    for (std::size_t i = 0; i < check.hosts.size() && i < labels.size(); ++i) {
      if (!check.hosts[i]) continue;
      const Verdict& v = *check.hosts[i];
      auto it = std::find_if(distinct.begin(), distinct.end(),
                             [&](const Verdict* d) { return same(*d, v); });
      std::size_t k = static_cast<std::size_t>(it - distinct.begin());
      if (it == distinct.end()) {
        distinct.push_back(&v);
        members.emplace_back();
      }
      members[k].push_back(labels[i]);
    }
    for (std::size_t k = 0; k < distinct.size(); ++k) {
      const Verdict& v = *distinct[k];
      out += std::string(tag(v.outcome)) + " " + check.name;
      if (!v.value.empty()) out += " " + v.value;
      out += ": " + fold_names(members[k]);
      if (!v.note.empty()) out += " " + v.note;
      out += "\n";
    }
  }
  return out;
}

std::string check_json(const std::vector<std::string>& labels,
                       const std::vector<CheckResult>& checks) {
  std::string out;
  for (const CheckResult& check : checks)
    for (std::size_t i = 0; i < check.hosts.size() && i < labels.size(); ++i) {
      if (!check.hosts[i]) continue;
      const Verdict& v = *check.hosts[i];
      out += "{\"check\":" + json_string(check.name) + ",\"host\":" + json_string(labels[i]) +
             ",\"outcome\":\"" + json_outcome(v.outcome) + "\",\"value\":" + json_string(v.value) +
             ",\"note\":" + json_string(v.note) +
             ",\"detail\":" + (v.detail.empty() ? "null" : json_string(v.detail)) + "}\n";
    }
  return out;
}

bool any_failed(const std::vector<CheckResult>& checks) {
  for (const CheckResult& check : checks)
    for (const auto& v : check.hosts)
      if (v && v->outcome == Outcome::fail) return true;
  return false;
}

CheckResult agreement(std::string name, const std::vector<std::optional<std::string>>& values,
                      const std::string& absent, const std::vector<std::string>& labels,
                      const std::vector<bool>& present) {
  CheckResult check{std::move(name), std::vector<std::optional<Verdict>>(values.size())};
  auto applies = [&](std::size_t i) { return present.empty() || present[i]; };
  // The most common value, absent counting as one; ties to the first rank's.
  std::map<std::string, std::size_t> count;
  std::vector<std::string> order;
  bool any_value = false;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!applies(i)) continue;
    std::string key = values[i] ? "=" + *values[i] : "";
    if (values[i]) any_value = true;
    if (count[key]++ == 0) order.push_back(key);
  }
  if (order.empty()) return check;
  std::string common = order.front();
  for (const auto& key : order)
    if (count[key] > count[common]) common = key;
  auto shown = [&](const std::string& key) { return key.empty() ? absent : key.substr(1); };
  std::vector<std::string> common_hosts;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (applies(i) && (values[i] ? "=" + *values[i] : "") == common && i < labels.size())
      common_hosts.push_back(labels[i]);
  std::string note = "(" + fold_names(common_hosts) + ": " + shown(common) + ")";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!applies(i)) continue;
    std::string key = values[i] ? "=" + *values[i] : "";
    if (!any_value)
      check.hosts[i] = Verdict{Outcome::na, absent, ""};
    else if (key == common)
      check.hosts[i] = Verdict{Outcome::ok, shown(key), ""};
    else
      check.hosts[i] = Verdict{Outcome::fail, shown(key), note};
  }
  return check;
}

}  // namespace pdx
