#include "preflight/checks.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

#include "archive/size.h"
#include "base/strings.h"

namespace pdx {

namespace {

using Values = std::vector<std::optional<std::string>>;

std::vector<std::string> labels_of(const std::vector<HostProbe>& hosts) {
  std::vector<std::string> labels;
  for (const auto& h : hosts) labels.push_back(h.label);
  return labels;
}

std::vector<bool> reached(const std::vector<HostProbe>& hosts) {
  std::vector<bool> mask;
  for (const auto& h : hosts) mask.push_back(h.error.empty());
  return mask;
}

/// The value of `key` on every reached host; "-" (the probe's word for absent) and "" as nullopt.
Values values_of(const std::vector<HostProbe>& hosts, const std::string& key) {
  Values values;
  for (const auto& h : hosts) {
    auto v = h.facts.get(key);
    if (v && (v->empty() || *v == "-")) v.reset();
    values.push_back(v);
  }
  return values;
}

std::optional<std::uint64_t> number(std::string_view text) {
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

/// A check computed host by host (nullopt: nothing to say), over the reached hosts.
CheckResult per_host(std::string name, const std::vector<HostProbe>& hosts,
                     const std::function<std::optional<Verdict>(const HostProbe&)>& verdict) {
  CheckResult check{std::move(name), {}};
  for (const auto& h : hosts) check.hosts.push_back(h.error.empty() ? verdict(h) : std::nullopt);
  return check;
}

/// A per-host check whose passing values must also agree: the hosts that passed their own test
/// are compared with agreement(), the others keep their failure.
CheckResult agreeing(CheckResult own, const std::vector<std::string>& labels) {
  Values values;
  std::vector<bool> mask;
  for (const auto& v : own.hosts) {
    bool passed = v && v->outcome == Outcome::ok;
    mask.push_back(passed);
    values.push_back(passed ? std::optional<std::string>(v->value) : std::nullopt);
  }
  CheckResult compared = agreement(own.name, values, "", labels, mask);
  for (std::size_t i = 0; i < own.hosts.size(); ++i)
    if (mask[i]) own.hosts[i] = compared.hosts[i];
  return own;
}

std::string ms(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.0f ms", value);
  return text;
}

CheckResult reached_check(const std::vector<HostProbe>& hosts) {
  CheckResult check{"reached", {}};
  for (const auto& h : hosts)
    check.hosts.push_back(h.error.empty() ? Verdict{Outcome::ok, "", ""}
                                          : Verdict{Outcome::fail, "", "(" + h.error + ")"});
  return check;
}

Values torch_values(const std::vector<HostProbe>& hosts) {
  Values values = values_of(hosts, "torch");
  Values cuda = values_of(hosts, "torch.cuda"), nccl = values_of(hosts, "torch.nccl");
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!values[i]) continue;
    *values[i] += cuda[i] ? ", CUDA " + *cuda[i] : ", CPU only";
    if (nccl[i]) *values[i] += ", NCCL " + *nccl[i];
  }
  return values;
}

/// nvidia-smi's line "name, driver, persistence, ecc" split; nullopt when it is not that (an
/// error message instead).
std::optional<std::vector<std::string>> gpu_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (;;) {
    auto comma = line.find(',', start);
    fields.emplace_back(trim(std::string_view(line).substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (fields.size() != 4 || fields[0].empty()) return std::nullopt;
  return fields;
}

Values driver_values(const std::vector<HostProbe>& hosts) {
  Values values;
  for (const auto& h : hosts) {
    auto fields = gpu_fields(h.facts.value_or("gpu.0", ""));
    values.push_back(fields ? std::optional<std::string>((*fields)[1]) : std::nullopt);
  }
  return values;
}

std::optional<Verdict> gpus_verdict(const HostProbe& h) {
  std::string slots = h.slots ? ", slots=" + std::to_string(h.slots) : "";
  auto count = number(h.facts.value_or("gpus", "-"));
  if (!count) {
    if (h.slots) return Verdict{Outcome::fail, "none (no nvidia-smi)" + slots, ""};
    return Verdict{Outcome::na, "(no nvidia-smi)", ""};
  }
  std::string model;
  std::uint64_t ecc = 0;
  bool persistence_off = false;
  for (std::uint64_t i = 0; i < *count; ++i) {
    std::string line = h.facts.value_or("gpu." + std::to_string(i), "");
    auto fields = gpu_fields(line);
    if (!fields) return Verdict{Outcome::fail, "nvidia-smi: " + line, ""};
    if (model.empty()) model = (*fields)[0];
    if ((*fields)[0] != model) model = "mixed models";
    ecc += number((*fields)[3]).value_or(0);
    persistence_off |= (*fields)[2] == "Disabled";
  }
  if (*count == 0) return Verdict{h.slots ? Outcome::fail : Outcome::na, "none found" + slots, ""};
  std::string value = std::to_string(*count) + " x " + model;
  if (h.slots && static_cast<std::uint64_t>(h.slots) != *count)
    return Verdict{Outcome::fail, value + slots, ""};
  if (ecc) return Verdict{Outcome::fail, value + ", " + std::to_string(ecc) + " ECC errors", ""};
  if (persistence_off) value += ", persistence mode off";
  return Verdict{Outcome::ok, value + slots, ""};
}

/// The interfaces a NCCL_SOCKET_IFNAME-style list names on the host: present, up, an address;
/// the value names them and their MTU.
std::optional<Verdict> interface_verdict(const HostProbe& h, const std::string& var) {
  auto spec = h.facts.get("ifvar." + var);
  if (!spec) return Verdict{Outcome::fail, "not set", ""};
  if (spec->starts_with("^"))
    return Verdict{Outcome::na, *spec + " (an exclusion: not checked)", ""};
  bool exact = spec->starts_with("=");
  std::string list = exact ? spec->substr(1) : *spec;
  // The host's interfaces: name -> (flags, mtu); and which have an address.
  struct Interface {
    std::string name;
    std::uint64_t flags = 0;
    std::string mtu;
  };
  std::vector<Interface> interfaces;
  for (std::size_t i = 0;; ++i) {
    auto line = h.facts.get("iface." + std::to_string(i));
    if (!line) break;
    auto words = split_blanks(*line);
    if (words.size() != 3) continue;
    std::uint64_t flags = 0;
    std::string_view hex = words[1].starts_with("0x") ? words[1].substr(2) : words[1];
    std::from_chars(hex.data(), hex.data() + hex.size(), flags, 16);
    interfaces.push_back({std::string(words[0]), flags, std::string(words[2])});
  }
  bool addresses_known = h.facts.has("ipaddr.0");
  auto has_address = [&](const std::string& name) {
    for (std::size_t i = 0;; ++i) {
      auto line = h.facts.get("ipaddr." + std::to_string(i));
      if (!line) return false;
      auto words = split_blanks(*line);
      if (words.size() == 2 && words[0].substr(0, words[0].find('@')) == name) return true;
    }
  };
  std::vector<std::string> good, bad;
  std::size_t start = 0;
  for (;;) {
    auto comma = list.find(',', start);
    std::string want = list.substr(start, comma - start);
    if (!want.empty()) {
      bool found = false;
      for (const auto& itf : interfaces) {
        if (exact ? itf.name != want : !itf.name.starts_with(want)) continue;
        found = true;
        if (!(itf.flags & 1))
          bad.push_back(itf.name + " down");
        else if (addresses_known && !has_address(itf.name))
          bad.push_back(itf.name + " has no address");
        else
          good.push_back(itf.name + " up, mtu " + itf.mtu);
      }
      if (!found) bad.push_back(want + " missing");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (!bad.empty()) return Verdict{Outcome::fail, join(bad, "; "), ""};
  if (good.empty()) return Verdict{Outcome::fail, "names no interface", ""};
  return Verdict{Outcome::ok, join(good, "; "), ""};
}

std::optional<Verdict> clock_verdict(const HostProbe& h, double bound) {
  if (!h.clock_offset_ms) return Verdict{Outcome::na, "(no reading)", ""};
  char within[48];
  std::snprintf(within, sizeof within, "within %.0f ms", bound);
  if (std::fabs(*h.clock_offset_ms) <= bound) return Verdict{Outcome::ok, within, ""};
  return Verdict{Outcome::fail, "off by " + ms(*h.clock_offset_ms),
                 std::string("(") + within + ")"};
}

std::optional<Verdict> at_least(const std::optional<std::string>& text, std::uint64_t unit,
                                std::uint64_t minimum, bool sizes) {
  if (!text) return Verdict{Outcome::fail, "unknown", ""};
  if (*text == "unlimited") return Verdict{Outcome::ok, "unlimited", ""};
  auto n = number(*text);
  if (!n) return Verdict{Outcome::fail, "unknown: " + *text, ""};
  std::uint64_t value = *n * unit;
  std::string shown = sizes ? human_size(value) : std::to_string(value);
  if (value < minimum)
    return Verdict{Outcome::fail,
                   shown + " < " + (sizes ? human_size(minimum) : std::to_string(minimum)), ""};
  return Verdict{Outcome::ok, shown, ""};
}

/// Free space under a --need-disk directory. The hosts short of space share one line whatever
/// each has free (free space moves while hosts are probed, and differs on every host of a real
/// cluster): its note gives the least and the most free among them, JSON each host's own figure.
CheckResult disk_check(std::string name, const std::string& key, std::uint64_t need,
                       const std::vector<HostProbe>& hosts) {
  std::uint64_t least = UINT64_MAX, most = 0;
  CheckResult check =
      per_host(std::move(name), hosts, [&](const HostProbe& h) -> std::optional<Verdict> {
        auto free_kb = number(h.facts.value_or(key, ""));
        if (!free_kb) return Verdict{Outcome::fail, "(not found)", ""};
        std::uint64_t free = *free_kb * 1024;
        if (free >= need) return Verdict{Outcome::ok, ">= " + human_size(need) + " free", ""};
        least = std::min(least, free);
        most = std::max(most, free);
        return Verdict{Outcome::fail, "free < " + human_size(need), "", human_size(free)};
      });
  std::string span = human_size(least);
  if (human_size(most) != span) span += " to " + human_size(most);
  for (auto& v : check.hosts)
    if (v && !v->detail.empty()) v->note = "(" + span + " free)";
  return check;
}

std::optional<Verdict> memlock_verdict(const HostProbe& h) {
  auto text = h.facts.get("memlock");
  bool rdma = number(h.facts.value_or("rdma", "0")).value_or(0) > 0;
  if (!text) return Verdict{Outcome::fail, "unknown", ""};
  std::string shown = *text == "unlimited" ? *text : *text + " KiB";
  if (!rdma) return Verdict{Outcome::ok, shown + " (no RDMA device)", ""};
  if (*text == "unlimited") return Verdict{Outcome::ok, shown, ""};
  return Verdict{Outcome::fail, shown + " with RDMA devices (unlimited wanted)", ""};
}

std::optional<Verdict> agent_verdict(const HostProbe& h, const std::vector<std::string>& ours) {
  for (std::size_t i = 0;; ++i) {
    auto sha = h.facts.get("agent." + std::to_string(i));
    if (!sha) break;
    for (const auto& mine : ours)
      if (*sha == mine) return Verdict{Outcome::ok, "of this pdx (" PDX_VERSION ") cached", ""};
  }
  return Verdict{Outcome::na, "(not cached: push and verify deploy it)", ""};
}

/// What ssh said after its last ": ", so that the same failure folds across the hosts it names
/// ("ssh: connect to host n2 port 22: Connection refused" -> "Connection refused").
std::string ssh_reason(std::string_view said) {
  said = trim(said.substr(std::min<std::size_t>(4, said.size())));  // after "fail"
  auto colon = said.rfind(": ");
  if (colon != std::string_view::npos && colon + 2 < said.size()) said = said.substr(colon + 2);
  return said.empty() ? "failed" : std::string(said);
}

std::string rate(double mbit) {
  char text[32];
  if (mbit >= 1000)
    std::snprintf(text, sizeof text, "%.1f Gbit/s", mbit / 1000);
  else
    std::snprintf(text, sizeof text, "%.0f Mbit/s", mbit);
  return text;
}

/// --net: each host's bandwidth in one round (fact `key`: the ring's, or to the master) against
/// the median of all; a host at less than half of it fails, with its own figures.
CheckResult net_check(std::string name, const std::string& key,
                      const std::vector<HostProbe>& hosts) {
  struct Figures {
    double rtt = 0, mbit = 0;
  };
  std::vector<std::optional<Figures>> figures(hosts.size());
  std::vector<double> rates;
  bool loopback = false;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    loopback |= hosts[i].facts.has("net.loopback");
    Figures f;
    if (std::sscanf(hosts[i].facts.value_or(key, "").c_str(), "ok %lf %lf", &f.rtt, &f.mbit) == 2 &&
        f.mbit >= 0) {
      figures[i] = f;
      rates.push_back(f.mbit);
    }
  }
  std::sort(rates.begin(), rates.end());
  double median = rates.empty() ? 0 : rates[rates.size() / 2];
  CheckResult check =
      per_host(std::move(name), hosts, [&](const HostProbe& h) -> std::optional<Verdict> {
        std::size_t i = static_cast<std::size_t>(&h - hosts.data());
        std::string to = "to " + h.facts.value_or(key + ".to", "?");
        std::string net = h.facts.value_or(key, "");
        if (net.empty()) return std::nullopt;
        if (net == "-") return Verdict{Outcome::na, "(no Python to measure with)", ""};
        if (!figures[i])
          return Verdict{Outcome::fail, to,
                         "(" + std::string(trim(std::string_view(net).substr(4))) + ")"};
        char rtt[32];
        std::snprintf(rtt, sizeof rtt, "%.2f ms", figures[i]->rtt);
        std::string own = rate(figures[i]->mbit) + " " + to + ", RTT " + rtt;
        if (figures[i]->mbit < median / 2)
          return Verdict{Outcome::fail, own, "(median " + rate(median) + ")", own};
        return Verdict{Outcome::ok, "median " + rate(median), "", own};
      });
  if (loopback) check.name += " (loopback)";
  return check;
}

void add_ssh_check(std::vector<CheckResult>& checks, const std::vector<HostProbe>& hosts) {
  if (hosts.empty() || !hosts[0].error.empty()) return;
  const HostFacts& first = hosts[0].facts;
  CheckResult check{"ssh from " + hosts[0].label, {}};
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (first.value_or("ssh", "") == "-") {
      check.hosts.push_back(Verdict{Outcome::na, "(no ssh client there)", ""});
      continue;
    }
    auto said = first.get("ssh." + std::to_string(i));
    if (!said)
      check.hosts.push_back(Verdict{Outcome::fail, "", "(no answer)"});
    else if (*said == "ok")
      check.hosts.push_back(Verdict{Outcome::ok, "", ""});
    else
      check.hosts.push_back(Verdict{Outcome::fail, "", "(" + ssh_reason(*said) + ")"});
  }
  checks.push_back(std::move(check));
}

void add_master_checks(std::vector<CheckResult>& checks, const std::vector<HostProbe>& hosts,
                       const CheckOptions& o) {
  std::size_t m = *o.master;
  std::string where = o.master_name + ":" + std::to_string(o.port);
  CheckResult port{"master port " + std::to_string(o.port),
                   std::vector<std::optional<Verdict>>(hosts.size())};
  std::string listen = m < hosts.size() ? hosts[m].facts.value_or("listen", "") : "";
  bool listening = listen == "ok";
  if (m < hosts.size() && hosts[m].error.empty()) {
    if (listening)
      port.hosts[m] = Verdict{Outcome::ok, "free", ""};
    else if (listen == "-" || listen.empty())
      port.hosts[m] = Verdict{Outcome::na, "(no " + o.python + " to listen with)", ""};
    else
      port.hosts[m] = Verdict{Outcome::fail, "taken",
                              "(" + listen.substr(std::min<std::size_t>(5, listen.size())) + ")"};
  }
  checks.push_back(std::move(port));
  checks.push_back(
      per_host("connect to " + where, hosts, [&](const HostProbe& h) -> std::optional<Verdict> {
        std::string reach = h.facts.value_or("reach", "-");
        if (!listening) return Verdict{Outcome::na, "(no listener there)", ""};
        if (reach == "-") return Verdict{Outcome::na, "(no " + o.python + " to connect with)", ""};
        if (reach.starts_with("ok")) return Verdict{Outcome::ok, "", ""};
        return Verdict{Outcome::fail, "",
                       "(" + std::string(trim(std::string_view(reach).substr(4))) + ")"};
      }));
}

}  // namespace

std::vector<CheckResult> run_checks(const std::vector<HostProbe>& hosts, const CheckOptions& o) {
  std::vector<std::string> labels = labels_of(hosts);
  std::vector<bool> up = reached(hosts);
  std::vector<CheckResult> checks;
  checks.push_back(reached_check(hosts));
  checks.push_back(agreement("os", values_of(hosts, "os"), "(unknown)", labels, up));
  checks.push_back(agreement("kernel", values_of(hosts, "kernel"), "(unknown)", labels, up));
  checks.push_back(agreement("glibc", values_of(hosts, "glibc"), "(not glibc)", labels, up));
  checks.push_back(agreement(o.python, values_of(hosts, "python"), "(not found)", labels, up));
  checks.push_back(agreement("torch", torch_values(hosts), "(not installed)", labels, up));
  checks.push_back(
      agreement("deepspeed", values_of(hosts, "deepspeed"), "(not installed)", labels, up));
  checks.push_back(
      agreement("accelerate", values_of(hosts, "accelerate"), "(not installed)", labels, up));
  checks.push_back(agreement("NVIDIA driver", driver_values(hosts), "(no nvidia-smi)", labels, up));
  checks.push_back(agreeing(per_host("GPUs", hosts, gpus_verdict), labels));
  for (const char* var : {"NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME"}) {
    bool set = false;
    for (const auto& h : hosts) set |= h.error.empty() && h.facts.has(std::string("ifvar.") + var);
    if (!set) continue;
    checks.push_back(agreeing(
        per_host(var, hosts, [&](const HostProbe& h) { return interface_verdict(h, var); }),
        labels));
  }
  checks.push_back(per_host("clock", hosts,
                            [&](const HostProbe& h) { return clock_verdict(h, o.max_clock_ms); }));
  checks.push_back(per_host("/dev/shm", hosts, [&](const HostProbe& h) {
    return at_least(h.facts.get("shm_kb"), 1024, o.min_shm, true);
  }));
  checks.push_back(per_host("ulimit -n", hosts, [&](const HostProbe& h) {
    return at_least(h.facts.get("nofile"), 1, o.min_nofile, false);
  }));
  checks.push_back(per_host("ulimit -l", hosts, memlock_verdict));
  for (std::size_t i = 0; i < o.need_disk.size(); ++i) {
    const auto& [dir, need] = o.need_disk[i];
    checks.push_back(disk_check("disk " + dir, "disk." + std::to_string(i), need, hosts));
  }
  if (!o.agent_sha256.empty())
    checks.push_back(per_host(
        "pdx agent", hosts, [&](const HostProbe& h) { return agent_verdict(h, o.agent_sha256); }));
  if (o.master) add_master_checks(checks, hosts, o);
  if (o.ssh) add_ssh_check(checks, hosts);
  if (o.net) {
    checks.push_back(net_check("net ring", "net", hosts));
    if (o.master) checks.push_back(net_check("net to the master", "net.master", hosts));
  }
  return checks;
}

}  // namespace pdx
