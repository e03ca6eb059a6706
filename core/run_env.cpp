#include "core/run_env.h"

#include "base/error.h"
#include "base/quote.h"
#include "base/read_file.h"
#include "base/strings.h"

namespace pdx {

namespace {

bool is_shell_name(std::string_view key) {
  if (key.empty() || (key[0] >= '0' && key[0] <= '9')) return false;
  for (char c : key) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::vector<EnvVar> place_env(const std::vector<Host>& hosts, std::size_t rank) {
  const Host& host = hosts.at(rank);
  std::vector<EnvVar> env = {
      {"PDX_HOST", host.name},
      {"PDX_RANK", std::to_string(rank)},
      {"PDX_NHOSTS", std::to_string(hosts.size())},
      {"PDX_MASTER", hosts.front().name},
  };
  if (host.slots > 0) env.emplace_back("PDX_SLOTS", std::to_string(host.slots));
  return env;
}

EnvVar parse_env_assignment(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos)
    throw UsageError("-E '" + std::string(text) + "': expected KEY=VALUE");
  std::string key(text.substr(0, eq));
  if (!is_shell_name(key))
    throw UsageError("-E '" + key + "': not a valid variable name (letters, digits, _)");
  return {key, std::string(text.substr(eq + 1))};
}

std::vector<EnvVar> read_env_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) throw UsageError("--env-file " + path + ": " + text.error());
  std::vector<EnvVar> env;
  int number = 0;
  for (std::string_view view : split_lines(*text)) {
    ++number;
    while (!view.empty() && (view.front() == ' ' || view.front() == '\t')) view.remove_prefix(1);
    if (view.empty() || view.front() == '#') continue;
    if (view.starts_with("export ")) view.remove_prefix(7);
    try {
      env.push_back(parse_env_assignment(view));
    } catch (const UsageError& e) {
      throw UsageError(path + ":" + std::to_string(number) + ": " + e.what());
    }
  }
  return env;
}

std::string substitute_exec(std::string_view command, const Host& host, std::string_view user,
                            std::size_t rank) {
  std::string out;
  out.reserve(command.size());
  for (std::size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    char next = i + 1 < command.size() ? command[i + 1] : '\0';
    if (c != '%' || (next != 'h' && next != 'u' && next != 'n' && next != '%')) {
      out += c;
      continue;
    }
    ++i;
    if (next == 'h')
      out += host.name;  // validated by the host parser: letters, digits, - . _ :
    else if (next == 'u')
      out += shell_quote(user);  // $USER or -l: not validated, so quoted
    else if (next == 'n')
      out += std::to_string(rank);
    else
      out += '%';
  }
  return out;
}

}  // namespace pdx
