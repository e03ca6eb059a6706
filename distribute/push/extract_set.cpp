#include "distribute/push/extract_set.h"

#include "hash/hash_files.h"
#include "hash/sha256.h"
#include "hash/xxh3.h"

namespace pdx {

namespace {

std::string parts_id(const std::vector<std::string>& parts, const PartReader& checked,
                     const std::optional<Manifest>& manifest) {
  if (checked.pack_id())
    return "pack-" + hex_id(*checked.pack_id()) + "-" + std::to_string(checked.total_size());
  if (manifest) {
    Sha256 sha;
    for (const auto& part : manifest->parts) {
      std::string line = std::to_string(part.size) + " " + part.sha256 + "\n";
      sha.update(line.data(), line.size());
    }
    return "sha256-" + sha.hex_digest();
  }
  std::string sums;
  for (const FileHash& part : hash_files(parts, FileDigest::xxh3)) {
    if (part.digest.empty()) return std::string();  // the stream says what fails to read
    sums += part.digest + "\n";
  }
  return "xxh3-" + hex(strong_hash(sums.data(), sums.size()));
}

}  // namespace

std::string extract_set_id(const std::vector<std::string>& parts, const PartReader& checked,
                           const std::optional<Manifest>& manifest) {
  if (!checked.seekable()) return std::string();
  std::string id = parts_id(parts, checked, manifest);
  // The counts -m checks after an unpack: a host holding the set as another manifest counted
  // it is not up to date, so that it is unpacked and checked against this one.
  if (!id.empty() && manifest)
    id += "-m" + std::to_string(manifest->files) + "-" + std::to_string(manifest->bytes);
  return id;
}

}  // namespace pdx
