#include "archive/hash_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "archive/sha256.h"
#include "base/fd.h"

namespace pdx {

namespace {

constexpr std::size_t kBuffer = 1 << 20;

Result<std::string> hash_with(const std::string& path, std::vector<char>& buffer) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return Error{path + ": cannot read: " + std::strerror(errno)};
  Sha256 sha;
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{path + ": cannot read: " + std::strerror(errno)};
    if (n == 0) break;
    sha.update(buffer.data(), static_cast<std::size_t>(n));
  }
  return sha.hex_digest();
}

}  // namespace

Result<std::string> hash_file(const std::string& path) {
  std::vector<char> buffer(kBuffer);
  return hash_with(path, buffer);
}

std::vector<FileHash> hash_files(const std::vector<std::string>& paths) {
  std::vector<FileHash> hashes(paths.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {  // each thread takes the next file: a big one does not hold up the rest
    std::vector<char> buffer(kBuffer);
    for (std::size_t i; (i = next++) < paths.size();) {
      auto digest = hash_with(paths[i], buffer);
      if (digest)
        hashes[i].sha256 = std::move(*digest);
      else
        hashes[i].error = digest.error();
    }
  };
  std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::jthread> threads(std::min(cores, paths.size()));
  for (auto& thread : threads) thread = std::jthread(work);
  threads.clear();  // joined: every hash is in
  return hashes;
}

}  // namespace pdx
