#include "preflight/host_facts.h"

#include "base/strings.h"

namespace pdx {

namespace {

bool good_key(std::string_view key) {
  if (key.empty() || key.size() > HostFacts::kMaxKey) return false;
  for (char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
          c == '.'))
      return false;
  return true;
}

std::string clean_value(std::string_view value) {
  value = trim(value.substr(0, HostFacts::kMaxValue));
  std::string out(value);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

}  // namespace

HostFacts HostFacts::parse(std::string_view out) {
  HostFacts facts;
  for (std::string_view line : split_lines(out)) {
    if (facts.facts_.size() >= kMaxFacts) break;
    auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = line.substr(0, eq);
    if (!good_key(key)) continue;
    facts.facts_.emplace(std::string(key), clean_value(line.substr(eq + 1)));
  }
  return facts;
}

std::optional<std::string> HostFacts::get(std::string_view key) const {
  auto it = facts_.find(key);
  if (it == facts_.end()) return std::nullopt;
  return it->second;
}

std::string HostFacts::value_or(std::string_view key, std::string_view fallback) const {
  auto it = facts_.find(key);
  return it == facts_.end() ? std::string(fallback) : it->second;
}

}  // namespace pdx
