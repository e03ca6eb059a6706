#pragma once
// An ssh_config(5) reader: the subset of keywords pdx honours, with OpenSSH's rules for
// precedence (the first value obtained for a keyword wins, `-o` options come before every
// file), Host patterns (`*`, `?`, `!`), `Match all` and `Include`. Other keywords, and other
// Match criteria, are ignored silently, as a config written for ssh(1) must keep working.
//
// Parsed once per run; lookup() is const and safe to call from every strand at once.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"

namespace pdx {

/// What ssh_config says about one host. Empty / zero: not set (the caller picks the default).
struct HostConfig {
  std::string hostname;  // HostName with %h expanded, else the host; in lower case, as ssh(1)
  std::string user;
  int port = 0;
  std::vector<std::string> identity_files;  // every IdentityFile, in order, not yet expanded
  bool identities_only = false;
  bool hash_known_hosts = false;
  std::string strict_host_key_checking;               // lower case: yes, no, off, accept-new, ask
  std::vector<std::string> user_known_hosts_files;    // not yet expanded
  std::vector<std::string> global_known_hosts_files;  // not yet expanded
  std::chrono::seconds connect_timeout{0};
  std::string kex_algorithms, host_key_algorithms, ciphers, macs;
  // ProxyJump and ProxyCommand: whichever comes first wins, as in ssh(1); "none" is not kept.
  std::string proxy_jump;     // [user@]host[:port][,...] as written
  std::string proxy_command;  // for /bin/sh -c, %-tokens not yet expanded
  // Warm connections (transport/mux_transport.h): lower case yes/no/auto/ask/autoask; seconds
  // a holder outlives its last use (nullopt: no ControlPersist or `no`; 0: `yes`, forever);
  // the socket's path, %-tokens not yet expanded ("none": no warm connection).
  std::string control_master;
  std::optional<std::chrono::seconds> control_persist;
  std::string control_path;
  // Keepalives on a holder's idle sessions (transport/mux_holder.h): every interval (0: none);
  // a host that does not answer count_max of them in a row is dropped (0 counts as 1).
  std::chrono::seconds server_alive_interval{0};
  int server_alive_count_max = 3;
};

/// An ssh time value: seconds, or a sum of NUMBER[smhdw] ("10m", "1h30m"). False: malformed.
bool parse_ssh_time(std::string_view value, std::chrono::seconds& out);

/// One hop of a ProxyJump list.
struct JumpSpec {
  std::string user;  // empty: the jump host's ssh_config User, else the local user
  std::string host;
  int port = 0;  // 0: the jump host's ssh_config Port, else 22
};

/// A ProxyJump value: `[user@]host[:port]` or `ssh://[user@]host[:port]`, comma-separated
/// ([v6addr]:port in brackets). Error: an empty hop, a bad port, or "none" inside a list.
Result<std::vector<JumpSpec>> parse_jumps(std::string_view value);

/// Values for the %-tokens and `~` of IdentityFile and UserKnownHostsFile.
struct TokenValues {
  std::string home;         // ~ and %d
  std::string local_user;   // %u
  std::string remote_host;  // %h: the HostName
  std::string remote_user;  // %r
  std::string alias;        // %n: the host as given
  int port = 22;            // %p
};

/// `~/x` and `%d %u %h %r %n %p %%` expanded as ssh(1) does.
std::string expand_tokens(std::string_view text, const TokenValues& values);

/// True if `host` matches the Host line's pattern list: some pattern matches, no `!pattern` does.
bool host_matches(std::string_view host, const std::vector<std::string>& patterns);

class SshConfig {
 public:
  /// A `-o Key=Value` or `-o "Key Value"`; it wins over every file. Error: not of that form.
  Result<void> add_option(std::string_view option);
  /// Reads a config file. `user_file`: relative Include paths are under ~/.ssh (else /etc/ssh).
  /// A missing file is not an error (ssh ignores a missing ~/.ssh/config); an unreadable one is.
  Result<void> add_file(const std::string& path, bool user_file);
  /// Parses config text as if read from `origin` (for tests and error messages).
  Result<void> add_text(std::string_view text, const std::string& origin, bool user_file);

  /// Whether any entry sets `keyword` (lower case), for whichever host.
  bool mentions(std::string_view keyword) const;

  /// What applies to `host`, matched (and put in HostName's %h) in lower case, as ssh(1) does.
  HostConfig lookup(std::string_view host) const;

 private:
  struct Entry {
    std::vector<std::vector<std::string>> conditions;  // every Host pattern list must match
    std::string keyword;                               // lower case
    std::string value;
  };
  Result<void> parse(std::string_view text, const std::string& origin, bool user_file,
                     const std::vector<std::vector<std::string>>& outer, int depth);
  Result<void> include(std::string_view value, bool user_file,
                       const std::vector<std::vector<std::string>>& conditions, int depth);
  void index();
  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::vector<std::size_t>> by_name_;  // under plain Host names
  std::vector<std::size_t> scanned_;                                   // the other entries
};

/// ASCII lower case: host names are compared in it.
std::string lower_case(std::string_view s);

/// Splits a config value into words: whitespace separated, "double quotes" group.
std::vector<std::string> split_words(std::string_view value);

}  // namespace pdx
