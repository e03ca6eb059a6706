#pragma once
// The process's umask, read without a window in which it is 0.
//
// umask(2) can only be read by setting it, so `m = umask(0); umask(m);` leaves a moment in which
// a file another thread creates gets mode 0666/0777. pdx creates files from several threads (the
// unpack writers), so the mask is read once, before any such thread exists, and kept.
#include <sys/types.h>

namespace pdx {

/// The umask as it was when first asked for (thread-safe; the first call should come from
/// main() or before pdx starts its threads, and later changes to the mask are not seen).
mode_t process_umask();

}  // namespace pdx
