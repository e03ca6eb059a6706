#include "transport/known_hosts.h"

#include <fcntl.h>
#include <libssh2.h>
#include <openssl/evp.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace pdx {
namespace {

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

/// The key type name at the start of an SSH key blob ("ssh-ed25519").
std::string_view key_type_name(std::string_view blob) {
  if (blob.size() < 4) return "unknown";
  auto len = (std::size_t(static_cast<unsigned char>(blob[0])) << 24) |
             (std::size_t(static_cast<unsigned char>(blob[1])) << 16) |
             (std::size_t(static_cast<unsigned char>(blob[2])) << 8) |
             std::size_t(static_cast<unsigned char>(blob[3]));
  return len <= blob.size() - 4 ? blob.substr(4, len) : "unknown";
}

int knownhost_key_type(int libssh2_hostkey_type) {
  switch (libssh2_hostkey_type) {
    case LIBSSH2_HOSTKEY_TYPE_RSA:
      return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
    case LIBSSH2_HOSTKEY_TYPE_DSS:
      return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_256:
      return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_384:
      return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_521:
      return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
    case LIBSSH2_HOSTKEY_TYPE_ED25519:
      return LIBSSH2_KNOWNHOST_KEY_ED25519;
    default:
      return LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
  }
}

/// Appends one line to `path` under an exclusive flock, so that two pdx runs accepting keys at
/// once do not interleave. Returns the line's number.
Result<int> append_locked(const std::string& path, const std::string& line) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return Error{"cannot write " + path};
  ::flock(fd, LOCK_EX);
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(text.size()))) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  std::string out = (!text.empty() && text.back() != '\n' ? "\n" : "") + line + "\n";
  bool ok = ::write(fd, out.data(), out.size()) == static_cast<ssize_t>(out.size());
  ::close(fd);  // releases the lock
  if (!ok) return Error{"cannot write " + path};
  return static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1 +
         (!text.empty() && text.back() != '\n');
}

}  // namespace

HostKeyPolicy parse_host_key_policy(std::string_view value) {
  if (value == "accept-new") return HostKeyPolicy::accept_new;
  if (value == "no" || value == "off") return HostKeyPolicy::no;
  return HostKeyPolicy::strict;
}

std::string fingerprint(const HostKey& key) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(key.blob.data(), key.blob.size(), digest, &len, EVP_sha256(), nullptr);
  std::string b64 = base64({reinterpret_cast<const char*>(digest), len});
  while (!b64.empty() && b64.back() == '=') b64.pop_back();  // ssh prints it unpadded
  return std::string(key_type_name(key.blob)) + " SHA256:" + b64;
}

std::string known_hosts_name(std::string_view host, int port) {
  if (port == 22 || port == 0) return std::string(host);
  return "[" + std::string(host) + "]:" + std::to_string(port);
}

KnownHosts::KnownHosts(std::vector<std::string> files) : files_(std::move(files)) {
  session_ = libssh2_session_init();
  hosts_ = session_ ? libssh2_knownhost_init(session_) : nullptr;
  if (!hosts_) return;
  for (std::size_t i = 0; i < files_.size(); ++i) read_file(i);
}

KnownHosts::~KnownHosts() {
  if (hosts_) libssh2_knownhost_free(hosts_);
  if (session_) libssh2_session_free(session_);
}

void KnownHosts::read_file(std::size_t file_index) {
  std::ifstream in(files_[file_index]);
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) add_line(line, file_index, line_no);
}

// libssh2_knownhost_readfile() forgets where an entry came from; reading line by line and
// noting the entries each line added is how a changed key can name its file:line.
void KnownHosts::add_line(std::string_view line, std::size_t file_index, int line_no) {
  auto first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos || line[first] == '#') return;
  std::string text(line);
  text += '\n';
  // A line libssh2 cannot parse (@cert-authority, an unknown key type) is skipped, as ssh does.
  if (libssh2_knownhost_readline(hosts_, text.data(), text.size(),
                                 LIBSSH2_KNOWNHOST_FILE_OPENSSH) != 0)
    return;
  libssh2_knownhost* entry = nullptr;
  while (libssh2_knownhost_get(hosts_, &entry, const_cast<libssh2_knownhost*>(last_)) == 0) {
    where_[entry] = Location{file_index, line_no};
    last_ = entry;
  }
}

KnownHosts::Found KnownHosts::check(const std::string& name, const HostKey& key,
                                    std::string& where) {
  libssh2_knownhost* entry = nullptr;
  // Port -1 with the bracketed name: only "[host]:port" entries match a non-22 port, as in ssh.
  int rc = libssh2_knownhost_checkp(hosts_, name.c_str(), -1, key.blob.data(), key.blob.size(),
                                    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
                                        knownhost_key_type(key.libssh2_type),
                                    &entry);
  if (rc == LIBSSH2_KNOWNHOST_CHECK_MATCH) return Found::match;
  if (rc != LIBSSH2_KNOWNHOST_CHECK_MISMATCH) return Found::unknown;
  auto it = where_.find(entry);
  where = it == where_.end() ? "known_hosts"
                             : files_[it->second.file] + ":" + std::to_string(it->second.line);
  return Found::changed;
}

Result<void> KnownHosts::accept(const std::string& name, const HostKey& key) {
  if (files_.empty()) return Error{"no known_hosts file to record the key of " + name + " in"};
  std::string line = name + " " + std::string(key_type_name(key.blob)) + " " + base64(key.blob);
  auto line_no = append_locked(files_.front(), line);
  if (!line_no) return Error{line_no.error()};
  add_line(line, 0, *line_no);
  return {};
}

Result<void> KnownHosts::verify(std::string_view host, int port, const HostKey& key,
                                HostKeyPolicy policy) {
  std::string name = known_hosts_name(host, port);
  std::lock_guard lock(mutex_);
  if (!hosts_) return Error{"cannot set up the known_hosts check"};
  std::string where;
  switch (check(name, key, where)) {
    case Found::match:
      return {};
    case Found::changed:
      return Error{"HOST KEY CHANGED for " + name + " (now " + fingerprint(key) +
                   "), it does not match " + where +
                   ": possible man-in-the-middle attack; nothing was run. If the change is "
                   "expected, remove that line"};
    case Found::unknown:
      break;
  }
  if (policy == HostKeyPolicy::strict)
    return Error{"host key for " + name + " is not known (" + fingerprint(key) +
                 "); nothing was run. To accept it, check the fingerprint and run with "
                 "-o StrictHostKeyChecking=accept-new"};
  return accept(name, key);
}

}  // namespace pdx
