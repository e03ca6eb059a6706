#pragma once
// What `pdx push` is asked to do (distribute/push/push.h), as cmd/push.cpp and pdcp parse it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "archive/manifest.h"
#include "distribute/direct_link.h"
#include "distribute/relay/relay_chain.h"

namespace pdx {

class ProgressMeter;

struct PushOptions {
  std::vector<std::string> sources;
  std::string dest;  // as typed: %h %n substituted per host, a trailing '/' kept
  bool extract = false;
  std::string agent;      // --agent PATH; empty: self-deploy
  bool no_agent = false;  // --no-agent: every host through sh and tar (push/posix_push.h)
  std::size_t fanout = 64;

  bool checksum = false;             // --checksum: files compared by XXH3-128, not mtime
  bool safe_links = false;           // --safe-links: symlinks out of their SRC not sent
  std::optional<Manifest> manifest;  // -m, with extract: each host's counts checked against it
  bool relay = false;                // --relay: host to host (distribute/relay/relay_chain.h)
  RelayOptions relay_options;        // --relay-bind, --relay-ports: also the direct links'
  DataVia data_via = DataVia::automatic;
  ProgressMeter* progress = nullptr;  // told of the bytes hosts take and the hosts that end
};

}  // namespace pdx
