#include "hash/hash_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "base/fd.h"
#include "hash/sha256.h"
#include "hash/xxh3.h"

namespace pdx {

namespace {

constexpr std::size_t kBuffer = 1 << 20;

template <class Hash>
Result<void> read_into(const std::string& path, std::vector<char>& buffer, Hash& hash) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return Error{path + ": cannot read: " + std::strerror(errno)};
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{path + ": cannot read: " + std::strerror(errno)};
    if (n == 0) return {};
    hash.update(buffer.data(), static_cast<std::size_t>(n));
  }
}

Result<std::string> hash_with(const std::string& path, FileDigest digest,
                              std::vector<char>& buffer) {
  if (digest == FileDigest::sha256) {
    Sha256 sha;
    TRY(read_into(path, buffer, sha));
    return sha.hex_digest();
  }
  StreamHash xxh;
  TRY(read_into(path, buffer, xxh));
  return hex(xxh.digest());
}

}  // namespace

Result<std::string> hash_file(const std::string& path, FileDigest digest) {
  std::vector<char> buffer(kBuffer);
  return hash_with(path, digest, buffer);
}

std::vector<FileHash> hash_files(const std::vector<std::string>& paths, FileDigest digest) {
  std::vector<FileHash> hashes(paths.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {  // each thread takes the next file: a big one does not hold up the rest
    std::vector<char> buffer(kBuffer);
    for (std::size_t i; (i = next++) < paths.size();) {
      auto hashed = hash_with(paths[i], digest, buffer);
      if (hashed)
        hashes[i].digest = std::move(*hashed);
      else
        hashes[i].error = hashed.error();
    }
  };
  std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::jthread> threads(std::min(cores, paths.size()));
  for (auto& thread : threads) thread = std::jthread(work);
  threads.clear();  // joined: every hash is in
  return hashes;
}

}  // namespace pdx
