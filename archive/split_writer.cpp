#include "archive/split_writer.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "hash/hash_files.h"

namespace pdx {

SplitWriter::SplitWriter(PartNaming naming, std::uint64_t part_size, Overwrite overwrite,
                         Checksum checksum, PartFraming framing)
    : naming_(std::move(naming)),
      part_size_(part_size),
      overwrite_(overwrite),
      checksum_(checksum),
      framing_(framing),
      id_(random_pack_id()) {
  set_.id = id_;
}

SplitWriter::~SplitWriter() = default;  // the TempFiles not committed remove themselves

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
  hash_.reset();
  if (checksum_ == Checksum::sha256 && framing_ == PartFraming::none) hash_.emplace();
  if (framing_ == PartFraming::none) xxh3_.emplace();
  if (framing_ != PartFraming::none) {
    // Written again with its length and last flag when the part is closed.
    std::string header = encode_part_header(framing_, {id_, index, 0, false});
    TRY(current_->write(header.data(), header.size()));
    current_size_ = header.size();
    written_ += header.size();
  }
  return {};
}

Result<void> SplitWriter::close_part(bool last) {
  if (framing_ != PartFraming::none) {
    std::string header = encode_part_header(framing_, {id_, done_.size(), current_size_, last});
    TRY(current_->write_at(0, header.data(), header.size()));
  }
  TRY(current_->close());
  std::string sha256;
  if (checksum_ == Checksum::sha256) {
    // Framed, the header changed after it was written: hash the part as it now is.
    if (hash_) {
      sha256 = hash_->hex_digest();
    } else {
      auto read_back = hash_file(current_->temp_name(), FileDigest::sha256);
      if (!read_back)
        return Error{current_->final_name() + ": cannot read back: " + read_back.error()};
      sha256 = *read_back;
    }
  }
  if (xxh3_) {
    set_.parts.push_back({std::filesystem::path(current_->final_name()).filename().string(),
                          current_size_, hex(xxh3_->digest())});
  }
  done_.push_back({current_->final_name(), current_size_, sha256});
  closed_.push_back(std::move(*current_));
  current_.reset();
  return {};
}

Result<std::optional<std::uint64_t>> SplitWriter::part_room() {
  if (framing_ == PartFraming::none) return std::optional<std::uint64_t>();
  if (!current_) {
    TRY(open_next_part());
  }
  return std::optional<std::uint64_t>(part_size_ - current_size_);
}

Result<void> SplitWriter::end_part() {
  if (!current_) return {};
  return close_part(false);
}

Result<void> SplitWriter::write(const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    if (!current_) {
      TRY(open_next_part());
    }
    std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(size, part_size_ - current_size_));
    if (framing_ != PartFraming::none && n < size) {
      return Error{current_->final_name() + ": compressed data overflows the part (" +
                   std::to_string(part_size_) + " bytes); this is a bug in pdx"};
    }
    TRY(current_->write(p, n));
    if (hash_) hash_->update(p, n);
    if (xxh3_) xxh3_->update(p, n);
    current_size_ += n;
    written_ += n;
    p += n;
    size -= n;
    if (current_size_ == part_size_ && framing_ == PartFraming::none) {
      TRY(close_part(false));
    }
  }
  return {};
}

Result<void> SplitWriter::finish() {
  if (!current_ && done_.empty()) {  // an empty stream is still one (empty) part
    TRY(open_next_part());
  }
  if (current_) {
    TRY(close_part(true));
  } else if (framing_ != PartFraming::none) {
    return Error{naming_.base() + ": the stream ended at a part's end; this is a bug in pdx"};
  }
  // The whole set is complete: only now does it replace what is there (see the header).
  TRY(place_set_file());
  if (overwrite_ == Overwrite::yes) {
    for (const auto& name : existing_parts(naming_.base())) {
      bool ours = std::any_of(done_.begin(), done_.end(),
                              [&](const WrittenFile& part) { return part.name == name; });
      if (!ours) ::unlink(name.c_str());
    }
  }
  for (auto& part : closed_) {
    TRY(part.commit());
  }
  return {};
}

Result<void> SplitWriter::place_set_file() {
  if (framing_ != PartFraming::none) {
    if (overwrite_ == Overwrite::yes) ::unlink(naming_.set_file().c_str());
    return {};
  }
  auto file = TRY(TempFile::create(naming_.set_file()));
  std::string text = encode_set_file(set_);
  TRY(file.write(text.data(), text.size()));
  return file.commit();
}

}  // namespace pdx
