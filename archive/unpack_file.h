#pragma once
// A regular file being unpacked: out of sight while it is written, given its final name in one
// step when complete (ARCHITECTURE.md, "Security rules": nothing half-written under a final name).
#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>

#include "base/result.h"

namespace pdx {

/// How a file is kept out of sight while it is written.
enum class Hiding {
  unnamed,    // an O_TMPFILE inode, with no name at all until linkat() gives it its final one
  temp_name,  // a temporary name in the same directory, renamed to the final one
};

/// `unnamed` if files can be made so in `dir`: its filesystem has O_TMPFILE, and the kernel lets
/// this process link a descriptor by itself (linkat AT_EMPTY_PATH: root, or anyone since Linux
/// 6.10). Asks the kernel without naming anything.
Hiding hiding_in(int dir);

/// hiding_in() asked once per filesystem, not once per file: the kernel's answer is the same for
/// every directory of one (each probe costs an O_TMPFILE inode, which ext4 puts on its orphan
/// list and takes off again: about a millisecond under load).
class HidingByFilesystem {
 public:
  Hiding in(int dir);

 private:
  bool known_ = false;
  dev_t device_ = 0;  // of the last directory asked about
  Hiding hiding_ = Hiding::temp_name;
};

/// One file being written in a directory that the caller holds open while it lives. Dropped
/// before commit() succeeds, it leaves nothing behind, under any name.
class UnpackFile {
 public:
  /// Creates the file that is to become `name` in `dir`, with mode (the umask applied, as by
  /// open). Hiding::unnamed falls back to temp_name where the filesystem has no O_TMPFILE (a
  /// mount inside the tree, say); temp_name must be unique in the directory. An Error says why
  /// it could not be created (strerror).
  static Result<UnpackFile> create(int dir, const std::string& name, std::string temp_name,
                                   mode_t mode, Hiding hiding);
  UnpackFile(UnpackFile&& other) noexcept;
  UnpackFile& operator=(UnpackFile&&) = delete;
  UnpackFile(const UnpackFile&) = delete;
  ~UnpackFile();

  int fd() const { return fd_; }
  /// Writes `data` at `offset` (offsets only growing from call to call). A run of zeros that
  /// fills whole aligned 4 KiB chunks is not written but left a hole, so that a sparse file stays
  /// sparse (as ARCHIVE_EXTRACT_SPARSE does). An Error: "cannot write: ..." (strerror).
  Result<void> write(std::span<const char> data, std::int64_t offset);
  /// Makes the file `size` bytes long where the writes ended before that (holes left at the end,
  /// or a gap never written). An Error: "cannot write: ...".
  Result<void> extend_to(std::int64_t size);
  /// Closes the file and gives it its final name, replacing what is there as rename(2) does (a
  /// file or a symlink, never followed; a directory there is an Error). On an Error ("cannot
  /// write: ...", "cannot put in place: ..."), nothing of the file is left.
  Result<void> commit();

 private:
  UnpackFile(int dir, const std::string& name, std::string temp_name, bool under_temp_name, int fd)
      : dir_(dir),
        name_(name),
        temp_name_(std::move(temp_name)),
        under_temp_name_(under_temp_name),
        fd_(fd) {}

  int dir_;
  std::string name_;
  std::string temp_name_;
  bool under_temp_name_;       // else unnamed, or committed
  int fd_;                     // until closed
  std::int64_t position_ = 0;  // of fd_: the end of the last run written
};

}  // namespace pdx
