#include "distribute/reference.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "archive/manifest.h"
#include "archive/sha256.h"
#include "base/fd.h"

namespace fs = std::filesystem;

namespace pdx {

namespace {

Result<std::string> sha256_of(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return Error{path + ": cannot read: " + std::strerror(errno)};
  Sha256 sha;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{path + ": cannot read: " + std::strerror(errno)};
    if (n == 0) break;
    sha.update(buffer.data(), static_cast<std::size_t>(n));
  }
  return sha.hex_digest();
}

// Hashes every file, as many at once as there are cores; the first failure is returned.
Result<void> hash_all(const std::string& dir, std::vector<Reference::File>& files) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::optional<Error> failed;
  auto work = [&] {
    for (std::size_t i; (i = next++) < files.size();) {
      auto digest = sha256_of(dir + "/" + files[i].name);
      if (digest) {
        files[i].sha256 = *digest;
        continue;
      }
      std::lock_guard lock(mutex);
      if (!failed) failed = Error{digest.error()};
      next = files.size();
    }
  };
  std::vector<std::jthread> threads(std::max(1u, std::thread::hardware_concurrency()));
  for (auto& thread : threads) thread = std::jthread(work);
  threads.clear();  // joined
  if (failed) return *failed;
  return {};
}

}  // namespace

const Reference::File* Reference::find(std::string_view name) const {
  auto it = index.find(std::string(name));
  return it == index.end() ? nullptr : &files[it->second];
}

Result<Reference> local_reference(const std::string& dir, bool hash) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Error{dir + ": not a directory (--against)", ErrorKind::bad_input};
  Reference ref;
  ref.has_hashes = hash;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    auto size = it->file_size(ec);
    if (ec) break;
    ref.files.push_back({it->path().lexically_relative(dir).generic_string(), size, {}});
  }
  if (ec) return Error{dir + ": cannot list: " + ec.message()};
  std::sort(ref.files.begin(), ref.files.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  if (hash) TRY(hash_all(dir, ref.files));
  for (std::size_t i = 0; i < ref.files.size(); ++i) {
    ref.index.emplace(ref.files[i].name, i);
    ref.bytes += ref.files[i].size;
  }
  ref.file_count = ref.files.size();
  return ref;
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
