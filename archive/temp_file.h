#pragma once
// A file that appears under its final name only when complete (ARCHITECTURE.md, "Security rules").
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/result.h"

namespace pdx {

/// Written under a temporary name next to its final one (DIR/.NAME.pdx-XXXXXX) and renamed into
/// place by commit(). Until then nothing exists under the final name; if commit() is never
/// reached, the destructor removes the temporary file. Owns its descriptor; move-only.
class TempFile {
 public:
  static Result<TempFile> create(const std::string& final_name);
  TempFile(TempFile&& other) noexcept;
  TempFile& operator=(TempFile&&) = delete;
  TempFile(const TempFile&) = delete;
  ~TempFile();

  Result<void> write(const void* data, std::size_t size);
  /// Overwrites bytes already written, at offset (before close()).
  Result<void> write_at(std::uint64_t offset, const void* data, std::size_t size);
  /// Closes the descriptor early (a set of parts holds many); commit() still renames.
  Result<void> close();
  /// Closes the file and renames it to its final name (replacing a file there).
  Result<void> commit();
  const std::string& final_name() const { return final_name_; }
  const std::string& temp_name() const { return temp_name_; }

 private:
  TempFile(std::string final_name, std::string temp_name, int fd)
      : final_name_(std::move(final_name)), temp_name_(std::move(temp_name)), fd_(fd) {}
  std::string final_name_;
  std::string temp_name_;
  int fd_;
};

/// Writes all of data to fd, retrying short writes; errno-style message on failure.
Result<void> write_all(int fd, const void* data, std::size_t size, const std::string& name);

}  // namespace pdx
