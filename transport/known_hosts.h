#pragma once
// Host key policy: the known_hosts files, read as ssh(1) reads them (plain names with `*`, `?`
// and `!` patterns, hashed names, `@revoked` keys), and what StrictHostKeyChecking allows.
// Host certificates are not supported: `@cert-authority` lines are skipped.
// Loaded once per set of files per run and shared by every session; verify() and known_types()
// are thread-safe.
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <openssl/sha.h>
#include <openssl/types.h>

#include "base/result.h"

namespace pdx {

/// StrictHostKeyChecking. A changed or revoked key is refused under every policy.
enum class HostKeyPolicy {
  strict,      // yes, ask (pdx never asks: a run may span a thousand hosts)
  accept_new,  // accept-new: record an unknown key, then go on
  no,          // no, off: as accept-new, but a key that cannot be recorded is only a warning
};

/// HashKnownHosts: whether a recorded key's host name is written hashed (as Debian's ssh does).
enum class HashNames { no, yes };

/// Parses a StrictHostKeyChecking value ("" is ssh's default, ask).
HostKeyPolicy parse_host_key_policy(std::string_view value);

/// A server's host key as libssh2_session_hostkey() gives it.
struct HostKey {
  std::string_view blob;  // the SSH wire encoding: string type, then the key
  int libssh2_type = 0;   // LIBSSH2_HOSTKEY_TYPE_* (unused: the type is read from the blob)
};

/// Where a warning goes (default: "pdx: warning: ..." on stderr).
using WarningSink = std::function<void(const std::string&)>;

class KnownHosts {
 public:
  /// Reads `user_files`, then `global_files`, in order (a missing file is empty; one that cannot
  /// be read, such as a directory, a device or a file over 64 MiB, fails every verify() saying
  /// so). New keys are recorded in user_files.front() only; with no user file, nowhere.
  KnownHosts(std::vector<std::string> user_files, std::vector<std::string> global_files,
             WarningSink warn = {});

  /// Checks `key` for `host` (the HostName) and `port` under `policy`, recording it when the
  /// policy allows a new key. Error: one line saying why the key is refused and what to do,
  /// without the host's name (the failure summary names it, and folds equal lines).
  Result<void> verify(std::string_view host, int port, const HostKey& key, HostKeyPolicy policy,
                      HashNames hash);

  /// The key types ("ssh-ed25519") known for host:port, in the order of the files; when the
  /// files hold keys of one type only, that type for every host (without matching its name).
  std::vector<std::string> known_types(std::string_view host, int port);

 private:
  // HMAC-SHA1 with the key's pads absorbed once, when a hashed line is read: each name then
  // costs two SHA-1 blocks (every host may be matched against thousands of hashed lines).
  class HmacSha1 {
   public:
    explicit HmacSha1(std::string_view key);
    std::string mac(std::string_view message) const;

   private:
    SHA_CTX inner_, outer_;
  };
  struct Entry {
    bool revoked = false;               // an @revoked line
    bool hashed = false;                // a hashed host field, "|1|salt|hash": these decoded
    std::optional<HmacSha1> salted;     //   (none if they do not decode); else
    std::string hash;                   //
    std::vector<std::string> patterns;  // the host field "a,[b]:2222,!c*" split, lower case
    std::string blob;                   // the key's wire encoding
    int line = 0;
  };
  enum class Found { match, unknown, changed, other_type, revoked };
  struct Verdict {
    Found found = Found::unknown;
    std::string where;  // file:line of the entry that decided it
    std::string type;   // other_type: the key type known there
  };
  // One file's entries, indexed: a host's entries are found without matching every line (a
  // cluster's known_hosts has a line per host, and every host looks itself up).
  class HostFile {
   public:
    explicit HostFile(std::string_view text);
    /// The entries for `name` in line order.
    std::vector<const Entry*> lookup(const std::string& name);
    /// Of the entries for `name` with key `blob`: sets `matched` if one is not @revoked, and
    /// returns the first that is (null if none).
    const Entry* match_key(const std::string& name, std::string_view blob, bool& matched);
    /// The key types of its entries, revoked ones aside.
    const std::vector<std::string>& types() const { return types_; }

   private:
    bool matches(std::size_t i, const std::string& name) const;
    void file_found(const std::string& name, const std::vector<std::size_t>& found);

    std::vector<Entry> entries_;  // in line order
    // Found by name: literal names, and a hashed name once a lookup has hashed to it (a hashed
    // name is one name: no other need be hashed for that entry again).
    std::unordered_map<std::string, std::vector<std::size_t>> by_name_;
    // The others (hashed names not found yet, wildcards, negations), in line order, matched one
    // by one: @revoked ones apart, as they are looked at for every host.
    std::vector<std::size_t> scanned_, scanned_revoked_;
    std::vector<std::string> types_;
  };
  static std::vector<Entry> parse(std::string_view text);
  static std::string hashed_name(const std::string& name);  // |1|salt|hash, with a new salt
  Verdict check(const std::string& name, std::string_view blob);
  Result<void> record(const std::string& name, const HostKey& key, HashNames hash,
                      Verdict& verdict);
  Result<void> judge(const HostKey& key, const Verdict& verdict) const;

  std::vector<std::string> files_;  // user files first
  bool writable_ = false;           // files_.front() is the user file new keys go to
  std::string load_error_;          // a file that could not be read: every verify() fails
  std::vector<HostFile> entries_;   // per file
  WarningSink warn_;
  std::mutex mutex_;  // guards entries_: accept-new adds to it from every strand
};

/// HostKeyAlgorithms `algorithms` (comma-separated) with those for a key of one of
/// `known_types` first, as ssh(1) orders them: the server then presents the key known_hosts holds.
std::string prefer_known_types(std::string_view algorithms,
                               const std::vector<std::string>& known_types);

/// "ssh-ed25519 SHA256:base64", as ssh(1) prints a key.
std::string fingerprint(const HostKey& key);

/// The known_hosts name of a host: "host" on port 22, "[host]:port" elsewhere; lower case.
std::string known_hosts_name(std::string_view host, int port);

}  // namespace pdx
