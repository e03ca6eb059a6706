#include "distribute/verify/reference.h"

#include <algorithm>
#include <filesystem>

#include "archive/manifest.h"
#include "hash/hash_files.h"

namespace fs = std::filesystem;

namespace pdx {

const Reference::File* Reference::find(std::string_view name) const {
  auto it = index.find(std::string(name));
  return it == index.end() ? nullptr : &files[it->second];
}

Result<Reference> local_reference(const std::string& dir, bool hash) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Error{dir + ": not a directory (--against)", ErrorKind::bad_input};
  Reference ref;
  ref.dir = dir;
  ref.has_hashes = hash;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().lexically_relative(dir).generic_string();
    if (it->is_symlink(ec)) {
      std::string target = fs::read_symlink(it->path(), ec).string();
      if (ec) break;
      ref.files.push_back({std::move(name), 0, {}, {}, std::move(target)});
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    auto size = it->file_size(ec);
    if (ec) break;
    ref.files.push_back({std::move(name), size, {}, {}});
  }
  if (ec) return Error{dir + ": cannot list: " + ec.message()};
  std::sort(ref.files.begin(), ref.files.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  for (std::size_t i = 0; i < ref.files.size(); ++i) {
    ref.index.emplace(ref.files[i].name, i);
    ref.bytes += ref.files[i].size;
    if (ref.files[i].target.empty()) ++ref.file_count;
  }
  return ref;
}

Result<void> hash_reference(Reference& reference, FileDigest kind) {
  std::vector<std::string> paths;
  std::vector<Reference::File*> files;  // the regular ones: a symlink is compared by its target
  for (auto& file : reference.files)
    if (file.target.empty()) {
      paths.push_back(reference.dir + "/" + file.name);
      files.push_back(&file);
    }
  auto hashes = hash_files(paths, kind);
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (!hashes[i].error.empty()) return Error{hashes[i].error};
    (kind == FileDigest::xxh3 ? files[i]->xxh3 : files[i]->sha256) = std::move(hashes[i].digest);
  }
  return {};
}

Result<Reference> manifest_reference(const std::string& path) {
  auto manifest = read_manifest(path);
  if (!manifest) return Error{manifest.error(), ErrorKind::bad_input};
  Reference ref;
  ref.has_names = false;
  ref.file_count = manifest->files;
  ref.bytes = manifest->bytes;
  return ref;
}

}  // namespace pdx
