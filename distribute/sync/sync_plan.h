#pragma once
// What `pdx sync` leaves out and takes away, decided here from what was scanned and listed:
//   --exclude  the excluded names taken out of the sources (distribute/sync/exclude.h)
//   --delete   per host, the names under DEST that the sources do not have, from its agent's
//              listing (`pdx agent --list`, as push lists): only in a directory the sources
//              have (DEST itself for a DIR/ source), never an excluded name nor a directory
//              holding one, every entry of an extra directory, children before their parents
#include <vector>

#include "distribute/push/push_plan.h"
#include "distribute/sync/exclude.h"

namespace pdx {

/// Takes the hidden names (ExcludeRules::hidden) out of both layouts; a lone file SRC that is
/// excluded leaves nothing to send.
void exclude_sources(PushSources& sources, const ExcludeRules& excludes);

/// The entries to delete on the host whose listing is `listing`, deepest first (each before the
/// directory holding it). None when the sources land as DEST (one file, DEST not a directory).
std::vector<Entry> deletions(const PushSources& sources, const HostListing& listing,
                             const ExcludeRules& excludes);

}  // namespace pdx
