#pragma once
// What unpack tells of an entry it could not create, write or put in place (archive/unpack.h),
// apart from the Error that says so: shared by unpack and its writer threads
// (archive/unpack_writers.h).
#include <string>

namespace pdx {

/// The entry as the archive names it, and why ("cannot write: REASON", "cannot create: REASON",
/// "cannot put in place: REASON"); the Error names the part too.
struct EntryFailure {
  std::string entry;
  std::string reason;
};

}  // namespace pdx
