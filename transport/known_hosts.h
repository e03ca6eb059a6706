#pragma once
// Host key policy: the known_hosts files (plain and hashed entries, through libssh2's knownhost
// API) and what StrictHostKeyChecking allows. Loaded once per set of files per run and shared by
// every session; check() and accept() are thread-safe.
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"

struct _LIBSSH2_SESSION;
struct _LIBSSH2_KNOWNHOSTS;
struct libssh2_knownhost;

namespace pdx {

/// StrictHostKeyChecking. A changed key is refused under every policy.
enum class HostKeyPolicy {
  strict,      // yes, ask (pdx never asks: a run may span a thousand hosts)
  accept_new,  // accept-new: record an unknown key, then go on
  no,          // no, off: as accept-new (ssh(1) also records it); only when asked for
};

/// Parses a StrictHostKeyChecking value ("" is ssh's default, ask).
HostKeyPolicy parse_host_key_policy(std::string_view value);

/// A server's host key as libssh2_session_hostkey() gives it.
struct HostKey {
  std::string_view blob;  // the SSH wire encoding: string type, then the key
  int libssh2_type = 0;   // LIBSSH2_HOSTKEY_TYPE_*
};

class KnownHosts {
 public:
  /// Reads `files` in order (a missing file is empty). New keys are appended to files.front().
  explicit KnownHosts(std::vector<std::string> files);
  ~KnownHosts();
  KnownHosts(const KnownHosts&) = delete;
  KnownHosts& operator=(const KnownHosts&) = delete;

  /// Checks `key` for `host` (the HostName) and `port` under `policy`, recording it when the
  /// policy allows a new key. Error: one line saying why the key is refused and what to do.
  Result<void> verify(std::string_view host, int port, const HostKey& key, HostKeyPolicy policy);

 private:
  enum class Found { match, unknown, changed };
  Found check(const std::string& name, const HostKey& key, std::string& where);
  Result<void> accept(const std::string& name, const HostKey& key);
  void read_file(std::size_t file_index);
  void add_line(std::string_view line, std::size_t file_index, int line_no);

  std::vector<std::string> files_;
  _LIBSSH2_SESSION* session_ = nullptr;  // libssh2's knownhost API needs one; never connected
  _LIBSSH2_KNOWNHOSTS* hosts_ = nullptr;
  const libssh2_knownhost* last_ = nullptr;  // the newest entry, to find what a line added
  struct Location {
    std::size_t file;
    int line;
  };
  std::unordered_map<const libssh2_knownhost*, Location> where_;  // entry -> file:line
  std::mutex mutex_;  // guards all of the above: libssh2's collection is not thread-safe
};

/// "ssh-ed25519 SHA256:base64", as ssh(1) prints a key.
std::string fingerprint(const HostKey& key);

/// The known_hosts name of a host: "host" on port 22, "[host]:port" elsewhere.
std::string known_hosts_name(std::string_view host, int port);

}  // namespace pdx
