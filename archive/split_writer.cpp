#include "archive/split_writer.h"

#include <unistd.h>

#include <algorithm>

namespace pdx {

SplitWriter::SplitWriter(PartNaming naming, std::uint64_t part_size, Overwrite overwrite,
                         Checksum checksum)
    : naming_(std::move(naming)),
      part_size_(part_size),
      overwrite_(overwrite),
      checksum_(checksum) {}

SplitWriter::~SplitWriter() {
  if (finished_) return;
  for (const auto& part : done_) ::unlink(part.name.c_str());
}

Result<void> SplitWriter::open_next_part() {
  std::uint64_t index = done_.size();
  if (index >= naming_.capacity()) {
    return Error{naming_.base() + ": needs more than " + std::to_string(naming_.capacity()) +
                 " parts, the most " + std::to_string(naming_.width()) +
                 "-digit suffixes can number; use a larger --suffix-length or --split size"};
  }
  auto file = TRY(TempFile::create(naming_.name(index)));
  current_.emplace(std::move(file));
  current_size_ = 0;
  if (checksum_ == Checksum::sha256) hash_.emplace();
  return {};
}

Result<void> SplitWriter::close_part() {
  TRY(current_->commit());
  done_.push_back({current_->final_name(), current_size_, hash_ ? hash_->hex_digest() : ""});
  current_.reset();
  return {};
}

Result<void> SplitWriter::write(const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    if (!current_) {
      TRY(open_next_part());
    }
    std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(size, part_size_ - current_size_));
    TRY(current_->write(p, n));
    if (hash_) hash_->update(p, n);
    current_size_ += n;
    written_ += n;
    p += n;
    size -= n;
    if (current_size_ == part_size_) {
      TRY(close_part());
    }
  }
  return {};
}

Result<void> SplitWriter::finish() {
  if (!current_ && done_.empty()) {  // an empty stream is still one (empty) part
    TRY(open_next_part());
  }
  if (current_) {
    TRY(close_part());
  }
  if (overwrite_ == Overwrite::yes) {
    for (const auto& name : existing_parts(naming_.base())) {
      bool ours = std::any_of(done_.begin(), done_.end(),
                              [&](const WrittenFile& part) { return part.name == name; });
      if (!ours) ::unlink(name.c_str());
    }
  }
  finished_ = true;
  return {};
}

}  // namespace pdx
