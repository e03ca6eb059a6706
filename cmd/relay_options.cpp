#include "cmd/relay_options.h"

#include <arpa/inet.h>

#include <cstdint>
#include <string_view>
#include <utility>

#include "agent/relay_frames.h"
#include "base/error.h"
#include "base/result.h"

namespace pdx {

namespace {

// "LOW-HIGH" or "PORT", ports 1024..65535: an agent runs as the user, who may not listen below.
Result<std::pair<std::uint16_t, std::uint16_t>> parse_port_range(const std::string& text) {
  auto number = [](std::string_view s) -> Result<std::uint16_t> {
    unsigned long n = 0;
    if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string_view::npos ||
        (n = std::stoul(std::string(s))) < 1 || n > 65535)
      return Error{"'" + std::string(s) + "' is not a port (1-65535)"};
    return std::uint16_t(n);
  };
  std::string_view t = text;
  auto dash = t.find('-');
  std::uint16_t low = TRY(number(t.substr(0, dash)));
  std::uint16_t high = dash == std::string_view::npos ? low : TRY(number(t.substr(dash + 1)));
  if (high < low) return Error{"the range ends before it starts"};
  if (low < 1024)
    return Error{"port " + std::to_string(low) +
                 " is privileged (below 1024): the agents cannot listen there; give ports in "
                 "1024-65535"};
  return std::pair{low, high};
}

// --relay's value: "chain" (the flag alone) or "tree:K", K in 2..kMaxRelayFanout; the fan-out.
Result<std::size_t> parse_relay_shape(const std::string& text) {
  if (text == "chain") return std::size_t(1);
  std::string_view k = std::string_view(text).substr(text.starts_with("tree:") ? 5 : text.size());
  if (!k.empty() && k.size() <= 2 && k.find_first_not_of("0123456789") == std::string_view::npos)
    if (std::size_t n = std::stoul(std::string(k)); n >= 2 && n <= kMaxRelayFanout) return n;
  return Error{"'" + text + "' is neither chain nor tree:K with K in 2-" +
               std::to_string(kMaxRelayFanout)};
}

// --relay-bind's value: a numeric IPv4 or IPv6 address, as the agents bind it (no name lookup).
bool numeric_address(const std::string& text) {
  unsigned char address[16];
  return ::inet_pton(AF_INET, text.c_str(), address) == 1 ||
         ::inet_pton(AF_INET6, text.c_str(), address) == 1;
}

}  // namespace

void add_link_options(CLI::App& app, RelayFlags& flags) {
  app.add_option("--relay-bind", flags.bind,
                 "The address the agents listen on for data links, --relay's and the direct ones "
                 "(default: the one ssh reached)");
  app.add_option("--relay-ports", flags.ports,
                 "The ports the agents listen on for data links, LOW-HIGH (default: any)");
}

void add_relay_options(CLI::App& app, RelayFlags& flags) {
  app.add_flag("--relay{chain}", flags.shape,
               "Send host to host over TCP between the agents instead of from here: a chain, or "
               "with --relay=tree:K a tree of fan-out K (2-16)");
  add_link_options(app, flags);
}

void add_data_via_option(CLI::App& app, DataVia& via) {
  app.add_option_function<std::string>(
         "--data-via",
         [&via](const std::string& value) {
           via = value == "ssh"      ? DataVia::ssh
                 : value == "direct" ? DataVia::direct
                                     : DataVia::automatic;
         },
         "How the data reaches each host's agent: auto (a direct encrypted link where the host "
         "was reached without a jump host, else ssh), ssh, or direct (a host that cannot link "
         "fails)")
      ->check(CLI::IsMember({"auto", "ssh", "direct"}));
}

bool relay_options(const RelayFlags& flags, RelayOptions& options) {
  if (!flags.bind.empty() && !numeric_address(flags.bind))
    throw UsageError("--relay-bind: '" + flags.bind +
                     "' is not an IPv4 or IPv6 address (the agents listen on it as given)");
  options.bind = flags.bind;
  if (!flags.ports.empty()) {
    auto range = parse_port_range(flags.ports);
    if (!range) throw UsageError("--relay-ports: " + range.error());
    options.low = range->first;
    options.high = range->second;
  }
  if (flags.shape.empty()) return false;
  auto fanout = parse_relay_shape(flags.shape);
  if (!fanout) throw UsageError("--relay: " + fanout.error());
  options.fanout = *fanout;
  return true;
}

}  // namespace pdx
