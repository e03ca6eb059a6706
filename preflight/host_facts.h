#pragma once
// What one host's probe (preflight/probe_script.h) printed: `key=value` lines, read as untrusted
// input. At most kMaxFacts lines are kept; a key is [A-Za-z0-9_.] of at most 64 bytes, a value at
// most 400 bytes, its control bytes replaced; other lines are dropped. The first of a key wins.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace pdx {

class HostFacts {
 public:
  static constexpr std::size_t kMaxFacts = 512;
  static constexpr std::size_t kMaxKey = 64;
  static constexpr std::size_t kMaxValue = 400;

  /// The facts of a probe's stdout.
  static HostFacts parse(std::string_view out);

  /// The value of `key`, or nullopt when the host did not say it.
  std::optional<std::string> get(std::string_view key) const;
  /// The value, or `fallback` when absent.
  std::string value_or(std::string_view key, std::string_view fallback) const;
  bool has(std::string_view key) const { return facts_.contains(std::string(key)); }
  void set(std::string key, std::string value) { facts_.emplace(std::move(key), std::move(value)); }
  std::size_t size() const { return facts_.size(); }

 private:
  std::map<std::string, std::string, std::less<>> facts_;
};

}  // namespace pdx
