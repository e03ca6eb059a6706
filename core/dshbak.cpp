#include "core/dshbak.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <tuple>

#include "base/strings.h"
#include "core/hostset.h"

namespace pdx {

namespace {

constexpr std::string_view kDivider = "----------------\n";

// dshbak's sort key: the number the name ends with (0 if none), then the name.
std::tuple<std::uint64_t, std::string_view> sort_key(std::string_view name) {
  auto begin = name.find_last_not_of("0123456789") + 1;  // npos + 1 == 0: all digits
  std::uint64_t value = 0;
  std::from_chars(name.data() + begin, name.data() + name.size(), value);  // too long: 0
  return {value, name};
}

}  // namespace

void Dshbak::add_line(std::string_view line) {
  auto colon = line.find(": ");
  if (colon == std::string_view::npos) colon = line.find(':');
  if (colon == std::string_view::npos) return;
  std::string_view label = trim(line.substr(0, colon));
  if (label.empty() || label.find_first_of(kBlanks) != std::string_view::npos) return;
  std::string_view text = line.substr(colon + 1);
  if (text.starts_with(' ')) text.remove_prefix(1);
  auto [it, added] = index_.try_emplace(std::string(label), labels_.size());
  if (added) {
    labels_.emplace_back(label);
    lines_.emplace_back();
  }
  lines_[it->second].emplace_back(text);
}

std::vector<std::size_t> Dshbak::order() const {
  std::vector<std::size_t> order(labels_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return sort_key(labels_[a]) < sort_key(labels_[b]);
  });
  return order;
}

std::vector<Dshbak::HostLines> Dshbak::per_host() const {
  std::vector<HostLines> out;
  for (std::size_t i : order()) {
    std::string text;
    for (const auto& line : lines_[i]) text += line + '\n';
    out.push_back({labels_[i], std::move(text)});
  }
  return out;
}

std::string Dshbak::format(Coalesce coalesce) const {
  std::vector<std::size_t> order = this->order();

  // Groups of hosts with identical lines, in order of their first host.
  std::vector<std::vector<std::size_t>> groups;
  std::map<const std::vector<std::string>*, std::size_t,
           bool (*)(const std::vector<std::string>*, const std::vector<std::string>*)>
      group_of([](const std::vector<std::string>* a, const std::vector<std::string>* b) {
        return *a < *b;
      });
  for (std::size_t i : order) {
    auto [it, added] = group_of.try_emplace(&lines_[i], groups.size());
    if (coalesce == Coalesce::no || added) {
      groups.push_back({i});
    } else {
      groups[it->second].push_back(i);
    }
  }

  std::string out;
  for (const auto& group : groups) {
    std::vector<std::string> names;
    for (std::size_t i : group) names.push_back(labels_[i]);
    out += kDivider;
    out += group.size() == 1 ? names.front() : fold_names(names);
    out += '\n';
    out += kDivider;
    for (const auto& line : lines_[group.front()]) out += line + '\n';
  }
  return out;
}

}  // namespace pdx
