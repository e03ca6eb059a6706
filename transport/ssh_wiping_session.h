#pragma once
// libssh2 frees the packets that carried a password (and keyboard-interactive answers) without
// wiping them. A session made here wipes every buffer libssh2 frees; used when --askpass gave a
// password.
#include <libssh2.h>

namespace pdx {

/// libssh2_session_init(), with an allocator that wipes what is freed. Null on failure.
LIBSSH2_SESSION* new_wiping_session();

}  // namespace pdx
