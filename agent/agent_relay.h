#pragma once
// `pdx agent --relay=DEST` (and `--relay-patch=DEST`): one host of a `pdx push --relay` (or
// `pdx sync --relay`) chain or tree. Set up over stdin and stdout (agent/relay_frames.h),
// it takes the stream from upstream (the head: its stdin; the others: their parent, over an
// authenticated link, agent/relay_link.h), hands it to its local consumer (as
// `pdx agent --receive` or `--patch` would take it on stdin), and forwards every chunk as it
// comes to the hosts after it (in a chain the next one, in a tree each of its children). A host
// after it that dies or stalls is bridged: this host links to that one's own children, each
// resuming from the offset it holds; and when its own upstream dies, it waits for such a bridge
// from the host before that. The consumer's replies go to stdout, so that pdx hears from every
// host over its own ssh session whatever happens to the links.
#include <functional>
#include <string>

#include "agent/agent_protocol.h"
#include "base/result.h"

namespace pdx {

/// What a host does with the stream locally: reads it from `in` to its end, replying on `out`;
/// what it wrote. agent_receive or agent_patch, with their DEST. `in` is the link's records
/// themselves on a host that forwards to nobody (a star's, a chain's last), else a pipe that a
/// thread of the relay fills, so that forwarding never waits on the local hash and disk.
using RelayConsumer = std::function<Result<Summary>(FrameInput& in, int out)>;

/// Runs one host's part of the relay, `local` taking the stream here; the Summary of what it
/// wrote, or an Error for the host (the relay called off, its upstream link broke, a malformed
/// frame).
Result<Summary> agent_relay(int in, int out, const RelayConsumer& local);

}  // namespace pdx
