#pragma once
// libssh2 1.10 reads the server's identification line ("SSH-2.0-OpenSSH_9.2p1 ...\r\n") one
// byte per recv(): ~40 system calls per host. This recv callback reads that line with two.
#include <libssh2.h>

namespace pdx {

/// Makes `session` read through recv_banner_whole(); set before the handshake.
void read_banner_whole(LIBSSH2_SESSION* session);

}  // namespace pdx
