// The sinks of one file and of stdout, and the choice among them and a SplitWriter.
#include "archive/open_output.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "archive/split_writer.h"
#include "archive/temp_file.h"
#include "hash/sha256.h"

namespace pdx {

namespace {

/// One output file, via a TempFile so that it appears only when complete.
class FileSink : public ByteSink {
 public:
  FileSink(TempFile file, Checksum checksum) : file_(std::move(file)) {
    if (checksum == Checksum::sha256) hash_.emplace();
  }
  Result<void> write(const void* data, std::size_t size) override {
    size_ += size;
    if (hash_) hash_->update(data, size);
    return file_.write(data, size);
  }
  Result<void> finish() override {
    if (hash_) sha256_ = hash_->hex_digest();
    return file_.commit();
  }
  std::vector<WrittenFile> files() const override { return {{file_.final_name(), size_, sha256_}}; }
  std::uint64_t written() const override { return size_; }

 private:
  TempFile file_;
  std::uint64_t size_ = 0;
  std::optional<Sha256> hash_;
  std::string sha256_;
};

/// Standard output; finish() has nothing to rename.
class StdoutSink : public ByteSink {
 public:
  Result<void> write(const void* data, std::size_t size) override {
    size_ += size;
    return write_all(STDOUT_FILENO, data, size, "standard output");
  }
  Result<void> finish() override { return {}; }
  std::vector<WrittenFile> files() const override { return {{"-", size_, {}}}; }
  std::uint64_t written() const override { return size_; }

 private:
  std::uint64_t size_ = 0;
};

constexpr std::uint64_t kMinFramedPart = 4096;

std::string overwrite_error(const std::string& name) {
  return name + ": already exists; remove it or pass --force to replace it";
}

}  // namespace

Result<std::unique_ptr<ByteSink>> open_output(const OutputSpec& spec) {
  if (spec.path == "-") {
    if (spec.part_size)
      return Error{"cannot split standard output into parts; name a file with -o"};
    return std::unique_ptr<ByteSink>(std::make_unique<StdoutSink>());
  }
  if (spec.part_size) {
    if (spec.framing != PartFraming::none && *spec.part_size < kMinFramedPart) {
      return Error{"--split " + std::to_string(*spec.part_size) +
                   ": parts of a compressed archive must be at least 4K (each begins with what "
                   "ties it to its set)"};
    }
    PartNaming naming(spec.path, spec.suffix_width);
    if (spec.framing == PartFraming::none &&
        std::filesystem::path(spec.path).filename().string().find('\n') != std::string::npos) {
      return Error{
          "cannot name parts with a newline: their set file lists them by name, a line "
          "each; choose another -o"};
    }
    if (spec.overwrite == Overwrite::no) {
      std::vector<std::string> existing = existing_parts(spec.path);
      std::error_code ec;
      if (std::filesystem::exists(std::filesystem::symlink_status(naming.set_file(), ec)))
        existing.push_back(naming.set_file());
      if (!existing.empty()) return Error{overwrite_error(existing.front())};
    }
    return std::unique_ptr<ByteSink>(std::make_unique<SplitWriter>(
        std::move(naming), *spec.part_size, spec.overwrite, spec.checksum, spec.framing));
  }
  std::error_code ec;
  if (spec.overwrite == Overwrite::no && std::filesystem::exists(spec.path, ec)) {
    return Error{overwrite_error(spec.path)};
  }
  auto file = TRY(TempFile::create(spec.path));
  return std::unique_ptr<ByteSink>(std::make_unique<FileSink>(std::move(file), spec.checksum));
}

}  // namespace pdx
