#include "archive/part_name.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

namespace pdx {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPartInfix = ".part-";
constexpr std::string_view kSetSuffix = "-set";

// A file name split into the prefix and the number its trailing digits spell.
struct NumberedName {
  std::string prefix;
  std::uint64_t index;
  std::size_t width;
};

std::optional<NumberedName> split_number(const std::string& name) {
  std::size_t digits = 0;
  while (digits < name.size() && digits < 18 &&
         std::isdigit(static_cast<unsigned char>(name[name.size() - 1 - digits]))) {
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  std::string prefix = name.substr(0, name.size() - digits);
  return NumberedName{prefix, std::stoull(name.substr(prefix.size())), digits};
}

std::string numbered(const std::string& prefix, std::uint64_t index, std::size_t width) {
  std::string digits = std::to_string(index);
  if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
  return prefix + digits;
}

// Files in the directory of `prefix` whose names are prefix + infix + digits, by index.
std::vector<NumberedName> find_numbered(const std::string& prefix, std::string_view infix) {
  fs::path p(prefix);
  fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::string start = p.filename().string() + std::string(infix);
  std::vector<NumberedName> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() <= start.size() || name.compare(0, start.size(), start) != 0) continue;
    auto num = split_number(name);
    if (!num || num->prefix != start) continue;
    num->prefix = (p.has_parent_path() ? (dir / start).string() : start);
    found.push_back(*num);
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.index != b.index ? a.index < b.index : a.width < b.width;
  });
  return found;
}

// Checks that numbered parts run 0, 1, 2, ... in the order given.
Result<void> check_sequence(const std::vector<NumberedName>& parts) {
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& part = parts[i];
    if (i > 0 && parts[i - 1].index == part.index) {
      return Error{numbered(parts[i - 1].prefix, parts[i - 1].index, parts[i - 1].width) + " and " +
                   numbered(part.prefix, part.index, part.width) + " are both part " +
                   std::to_string(part.index) + "; remove the stray one"};
    }
    if (part.index == i) continue;
    bool given_elsewhere = std::any_of(parts.begin(), parts.end(),
                                       [i](const NumberedName& p) { return p.index == i; });
    std::string name = numbered(part.prefix, part.index, part.width);
    if (!given_elsewhere) {
      return Error{"missing part " + numbered(part.prefix, i, part.width) + " (before " + name +
                   "): find it and name every part"};
    }
    return Error{"parts out of order: " + name + " is given as part " + std::to_string(i) +
                 "; name the parts in order, e.g. with a glob " + part.prefix + "*"};
  }
  return {};
}

// The parts BASE.part-N found on disk, checked to run 0, 1, 2, ...
Result<std::vector<std::string>> found_parts(const std::vector<NumberedName>& found) {
  TRY(check_sequence(found));
  std::vector<std::string> names;
  for (const auto& part : found) names.push_back(numbered(part.prefix, part.index, part.width));
  return names;
}

// The inputs without the set file of any part among them.
std::vector<std::string> without_set_files(const std::vector<std::string>& inputs) {
  std::set<std::string> beside;
  for (const auto& input : inputs) {
    if (auto set = set_file_beside(input)) beside.insert(*set);
  }
  std::vector<std::string> parts;
  for (const auto& input : inputs) {
    if (beside.count(input) == 0) parts.push_back(input);
  }
  return parts;
}

}  // namespace

std::string PartNaming::name(std::uint64_t index) const {
  return numbered(base_ + std::string(kPartInfix), index, static_cast<std::size_t>(width_));
}

std::string PartNaming::set_file() const {
  return base_ + std::string(kSetSuffix);
}

std::uint64_t PartNaming::capacity() const {
  std::uint64_t n = 1;
  for (int i = 0; i < width_; ++i) n *= 10;
  return n;
}

int suffix_width_for(std::uint64_t parts) {
  int width = 1;
  for (std::uint64_t n = 10; n < parts; n *= 10) ++width;
  return width;
}

Result<int> choose_suffix_width(std::optional<int> requested, std::uint64_t bytes, StreamSize known,
                                std::uint64_t part_size) {
  std::uint64_t parts = bytes == 0 ? 1 : (bytes - 1) / part_size + 1;
  if (!requested) return suffix_width_for(parts);
  if (*requested < 1 || *requested > 18) return Error{"--suffix-length must be from 1 to 18"};
  PartNaming naming("", *requested);
  if (known == StreamSize::exact && parts > naming.capacity()) {
    return Error{std::to_string(parts) + " parts needed, more than " +
                 std::to_string(naming.capacity()) + " that " + std::to_string(*requested) +
                 "-digit suffixes can number; use --suffix-length " +
                 std::to_string(suffix_width_for(parts)) + " or a larger size"};
  }
  return *requested;
}

std::vector<std::string> existing_parts(const std::string& base) {
  std::vector<std::string> names;
  for (const auto& part : find_numbered(base, kPartInfix)) {
    names.push_back(numbered(part.prefix, part.index, part.width));
  }
  return names;
}

std::optional<std::string> set_file_beside(const std::string& part) {
  std::size_t infix = part.rfind(kPartInfix);
  std::size_t digits = infix == std::string::npos ? 0 : infix + kPartInfix.size();
  if (infix == std::string::npos || digits == part.size() ||
      !std::all_of(part.begin() + static_cast<std::ptrdiff_t>(digits), part.end(),
                   [](unsigned char c) { return std::isdigit(c); })) {
    return std::nullopt;
  }
  return part.substr(0, infix) + std::string(kSetSuffix);
}

Result<std::vector<std::string>> resolve_parts(const std::vector<std::string>& given) {
  std::vector<std::string> inputs = without_set_files(given);
  if (inputs.size() == 1) {
    const std::string& input = inputs.front();
    std::error_code ec;
    if (input.ends_with(kSetSuffix)) {
      auto found = find_numbered(input.substr(0, input.size() - kSetSuffix.size()), kPartInfix);
      if (!found.empty()) return found_parts(found);
    }
    if (input == "-" || fs::symlink_status(input, ec).type() != fs::file_type::not_found) {
      return inputs;  // exists, or cannot tell: reading it says what is wrong
    }
    auto found = find_numbered(input, kPartInfix);
    if (found.empty()) found = find_numbered(input, "");
    if (found.empty()) {
      return Error{input + ": no such file, and no parts " + input + std::string(kPartInfix) +
                   "0, ... next to it"};
    }
    return found_parts(found);
  }
  std::vector<NumberedName> numbered_parts;
  for (const auto& input : inputs) {
    auto num = split_number(input);
    if (!num || (!numbered_parts.empty() && num->prefix != numbered_parts.front().prefix)) {
      return inputs;  // not one numbered set: read as given, like cat
    }
    numbered_parts.push_back(*num);
  }
  TRY(check_sequence(numbered_parts));
  return inputs;
}

}  // namespace pdx
