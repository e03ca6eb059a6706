// Hostfiles: pdsh's one host per line, and the DeepSpeed/MPI "host slots=8 max_slots=8" form.
#include "core/hostfile.h"

#include <charconv>
#include <cstring>
#include <optional>

#include "base/error.h"
#include "base/read_file.h"
#include "base/strings.h"

namespace pdx {
namespace {

/// "slots=8" -> 8; anything but a positive number of at most 6 digits throws.
int parse_count(std::string_view word, std::string_view value, const std::string& where) {
  int n = 0;
  bool ok = !value.empty() && value.size() <= 6;
  for (char c : value) ok = ok && c >= '0' && c <= '9';
  if (ok) std::from_chars(value.data(), value.data() + value.size(), n);
  if (!ok || n < 1) throw UsageError(where + ": bad '" + std::string(word) + "' (expected N >= 1)");
  return n;
}

/// The host line of one line of text, if it names hosts; where is "FILE:LINE" for errors.
std::optional<HostfileLine> parse_line(std::string_view line, std::string where) {
  line = line.substr(0, line.find('#'));
  auto words = split_blanks(line);
  if (words.empty()) return std::nullopt;
  // A hostfile naming hostfiles could name itself; one level is all pdsh offers too.
  if (words[0].find('^') != std::string_view::npos) {
    throw UsageError(where + ": '^FILE' is not allowed inside a hostfile");
  }
  int slots = 0;
  for (std::size_t i = 1; i < words.size(); ++i) {
    std::string_view word = words[i];
    auto eq = word.find('=');
    std::string_view key = word.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view{} : word.substr(eq + 1);
    if (key == "slots") {
      slots = parse_count(word, value, where);
    } else if (key == "max_slots" || key == "max-slots") {
      // Checked but unused: it only bounds MPI's oversubscription; pdx starts one command per host.
      parse_count(word, value, where);
    } else {
      throw UsageError(where + ": unknown '" + std::string(word) +
                       "' (expected 'host [slots=N] [max_slots=N]')");
    }
  }
  return HostfileLine{words[0], slots, std::move(where)};
}

}  // namespace

void read_hostfile(const std::string& path, const std::function<void(const HostfileLine&)>& each) {
  auto text = read_text_file(path);
  if (!text) throw UsageError("cannot read hostfile '" + path + "': " + text.error());
  int number = 0;
  bool named_any = false;
  for (std::string_view line : split_lines(*text)) {
    auto host_line = parse_line(line, path + ":" + std::to_string(++number));
    if (!host_line) continue;
    named_any = true;
    each(*host_line);
  }
  if (!named_any) throw UsageError("hostfile '" + path + "' names no hosts");
}

}  // namespace pdx
