#pragma once
// What `pdx sync` is asked to do (distribute/sync/sync.h), as cmd/sync.cpp parses it.
#include <cstddef>
#include <string>
#include <vector>

#include "distribute/direct_link.h"
#include "distribute/relay/relay_chain.h"

namespace pdx {

struct SyncOptions {
  std::vector<std::string> sources;
  std::string dest;                   // as typed: %h %n substituted per host, a trailing '/' kept
  std::string agent;                  // --agent PATH; empty: self-deploy
  std::vector<std::string> excludes;  // --exclude, as typed
  bool delete_extras = false;         // --delete
  bool safe_links = false;            // --safe-links: symlinks out of their SRC not sent
  bool dry_run = false;
  std::size_t fanout = 64;
  bool relay = false;  // --relay: each group's deltas and whole files host to host
  RelayOptions relay_options;
  DataVia data_via =
      DataVia::automatic;  // a star's deltas and whole files (distribute/direct_link.h)
};

}  // namespace pdx
