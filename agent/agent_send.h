#pragma once
// `pdx agent --send=REMOTE...`: the host's side of `pdx pull` over a direct link (pdx(1), pull,
// --data-via). Set up over stdin and stdout as a star push's direct host is (agent/relay_frames.h),
// the data then flowing the other way:
//
//   pdx -> agent (stdin)   relay_setup: the secret made for this host, where to listen
//   agent -> pdx (stdout)  relay_listening ADDRESS PORT
//   pdx -> agent (link)    pdx connects (agent/relay_link.h, LinkFlow::to_connector)
//   pdx -> agent (stdin)   relay_go once linked; the end of stdin instead when pdx could not
//                          link: the agent ends at once
//   agent -> pdx (link)    the tar stream of every REMOTE, in sealed records, then its end;
//                          a keepalive each second nothing went (agent/link_beat.h), so that
//                          a read held up longer than pdx's kRelayStall (a hung NFS mount, a
//                          slow disk) is not taken for a dead host
//
// The stream is the one `tar -cf - -C DIR ./NAME...` gives for pull_command's REMOTEs
// (distribute/remote_commands.h), made by archive/pack.h: the same names, symlinks stored as
// symlinks, modes and mtimes; a suffix added to each REMOTE's top name as its --transform does.
#include <string>
#include <vector>

#include "base/result.h"

namespace pdx {

struct SendRequest {
  std::vector<std::string> remotes;  // as pull_command takes them, relative to the home
  std::string suffix;                // rpdcp's ".HOST", added to each REMOTE's top name
  bool directories = true;           // false: a REMOTE that is a directory fails the send
};

/// Reads relay_setup from `in`, listens where it says (its bind, else ssh_address(); its ports),
/// says where on `out`, takes pdx's link (on a thread, while `in` is read for relay_go) and sends
/// the stream over it, to its end (pdx has then unpacked it). An Error for the host: no free
/// port, pdx never linked (`in` ended without relay_go, or no link within 30 s), a directory
/// refused ("use -r to copy directories: REMOTE"), the link broken; the link then breaks off,
/// never a shorter stream. A REMOTE that is missing, or a file or directory in one that cannot
/// be read, is left out as GNU tar leaves it: the rest is sent whole, then the first such is the
/// Error ("out/run1/log: cannot read: Permission denied; ...").
Result<void> agent_send(const SendRequest& request, int in, int out);

}  // namespace pdx
