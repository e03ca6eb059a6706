#pragma once
// push's and sync's --relay[=chain|tree:K], --relay-bind and --relay-ports (pdx(1), "The
// relay"), pull's --relay-bind and --relay-ports: added to a command's CLI::App, then checked
// into RelayOptions once it is parsed.
#include <string>

#include <CLI/CLI.hpp>

#include "distribute/direct_link.h"
#include "distribute/relay/relay_chain.h"

namespace pdx {

struct RelayFlags {
  std::string shape;  // --relay's value: "chain" for the flag alone; empty: no --relay
  std::string bind;   // --relay-bind
  std::string ports;  // --relay-ports, LOW-HIGH or PORT
};
void add_relay_options(CLI::App& app, RelayFlags& flags);
/// --relay-bind and --relay-ports alone (pull's: its direct links).
void add_link_options(CLI::App& app, RelayFlags& flags);

/// Whether --relay was given, its shape and ports checked into `options`. Throws UsageError
/// ("--relay: ...", "--relay-ports: ...") for a value that is not one.
bool relay_options(const RelayFlags& flags, RelayOptions& options);

/// --data-via auto|ssh|direct (push's and sync's star, pull's): added to `app`, its value into
/// `via`.
void add_data_via_option(CLI::App& app, DataVia& via);

}  // namespace pdx
