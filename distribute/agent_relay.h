#pragma once
// `pdx agent --relay=DEST`: one host of a `pdx push --relay` chain or tree. Set up over stdin
// and stdout (distribute/relay_frames.h), it takes the push's stream from upstream (the head:
// its stdin; the others: their parent, over an authenticated link, distribute/relay_link.h),
// writes it under DEST as `pdx agent --receive` does, and forwards every chunk as it comes to
// the hosts after it (in a chain the next one, in a tree each of its children). A host after it
// that dies or stalls is bridged: this host links to that one's own children, each resuming
// from the offset it holds; and when its own upstream dies, it waits for such a bridge from the
// host before that. The receive's replies go to stdout, so that pdx hears from every host over
// its own ssh session whatever happens to the links.
#include <string>

#include "base/result.h"
#include "distribute/agent_protocol.h"

namespace pdx {

/// Runs one host's part of the relay; the Summary of what it wrote, or an Error for the host
/// (the relay called off, its upstream link broke, a malformed frame).
Result<Summary> agent_relay(const std::string& dest, int in, int out);

}  // namespace pdx
