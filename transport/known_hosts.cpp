#include "transport/known_hosts.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "base/fd.h"
#include "base/read_file.h"
#include "transport/ssh_config.h"

namespace pdx {
namespace {

// The next whitespace-separated word of `rest`, taken off it; "" at the end.
std::string_view next_word(std::string_view& rest) {
  auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  auto begin = std::find_if_not(rest.begin(), rest.end(), space);
  auto end = std::find_if(begin, rest.end(), space);
  std::string_view word(begin, end);
  rest.remove_prefix(static_cast<std::size_t>(end - rest.begin()));
  return word;
}

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

/// Decodes padded base64; nullopt if it is not.
std::optional<std::string> unbase64(std::string_view text) {
  if (text.empty() || text.size() % 4 != 0) return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  auto padding = static_cast<std::size_t>(std::count(text.end() - 2, text.end(), '='));
  out.resize(static_cast<std::size_t>(n) - padding);
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

/// A name that can be written as a known_hosts host field without changing its meaning.
bool recordable(const std::string& name) {
  if (name.empty() || name.front() == '@' || name.front() == '|') return false;
  return std::none_of(name.begin(), name.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return std::isspace(u) || std::iscntrl(u) || std::strchr(",*?!#", c);
  });
}

void warn_on_stderr(const std::string& message) {
  std::fprintf(stderr, "pdx: warning: %s\n", message.c_str());
}

/// Opens `path` for appending under an exclusive flock, creating its directory (0700, as ssh
/// creates ~/.ssh) if missing. Error: why not.
Result<void> open_locked(const std::string& path, Fd& out) {
  auto dir = std::filesystem::path(path).parent_path();
  if (!dir.empty() && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Error{"cannot create " + dir.string() + ": " + std::strerror(errno)};
  out.reset(::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (!out) return Error{"cannot open " + path + ": " + std::strerror(errno)};
  int rc;
  while ((rc = ::flock(out.get(), LOCK_EX)) != 0 && errno == EINTR) {
  }
  if (rc != 0) return Error{"cannot lock " + path + ": " + std::strerror(errno)};
  return {};
}

}  // namespace

// OpenSSL 3 deprecates SHA1_Init and friends, but EVP cannot copy a digest's state without an
// allocation, and these copy it as a struct: HMAC (RFC 2104) over them is what makes a hashed
// line cheap to match.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
KnownHosts::HmacSha1::HmacSha1(std::string_view key) {
  unsigned char block[SHA_CBLOCK] = {};
  if (key.size() > sizeof block)
    SHA1(reinterpret_cast<const unsigned char*>(key.data()), key.size(), block);
  else
    std::memcpy(block, key.data(), key.size());
  for (auto [ctx, pad] : {std::pair{&inner_, 0x36}, std::pair{&outer_, 0x5c}}) {
    unsigned char padded[SHA_CBLOCK];
    for (std::size_t i = 0; i < sizeof padded; ++i) padded[i] = block[i] ^ pad;
    SHA1_Init(ctx);
    SHA1_Update(ctx, padded, sizeof padded);
  }
  OPENSSL_cleanse(block, sizeof block);
}

std::string KnownHosts::HmacSha1::mac(std::string_view message) const {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA_CTX ctx = inner_;
  SHA1_Update(&ctx, message.data(), message.size());
  SHA1_Final(digest, &ctx);
  ctx = outer_;
  SHA1_Update(&ctx, digest, sizeof digest);
  SHA1_Final(digest, &ctx);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}
#pragma GCC diagnostic pop

// ssh's hashed form of a known_hosts name: |1|base64(salt)|base64(HMAC-SHA1(salt, name)).
std::string KnownHosts::hashed_name(const std::string& name) {
  unsigned char salt[20];
  RAND_bytes(salt, sizeof salt);
  std::string_view key(reinterpret_cast<const char*>(salt), sizeof salt);
  return "|1|" + base64(key) + "|" + base64(HmacSha1(key).mac(name));
}

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
  if (port == 22 || port == 0) return lower_case(host);
  return "[" + lower_case(host) + "]:" + std::to_string(port);
}

KnownHosts::KnownHosts(std::vector<std::string> user_files, std::vector<std::string> global_files,
                       WarningSink warn)
    : files_(std::move(user_files)),
      writable_(!files_.empty()),
      warn_(warn ? std::move(warn) : warn_on_stderr) {
  files_.insert(files_.end(), global_files.begin(), global_files.end());
  for (const auto& file : files_) {
    auto text = read_text_file(file, IfMissing::empty);
    if (!text && load_error_.empty())
      load_error_ = "cannot read known_hosts " + file + ": " + text.error() + "; nothing was run";
    entries_.emplace_back(text ? *text : std::string());
  }
}

// "[@marker] hosts type base64 [comment]", as ssh's hostfile.c reads it. A line that does not
// parse, an unknown marker and @cert-authority (pdx does not do host certificates) are skipped.
std::vector<KnownHosts::Entry> KnownHosts::parse(std::string_view text) {
  std::vector<Entry> entries;
  for (int line_no = 1; !text.empty(); ++line_no) {
    auto newline = text.find('\n');
    std::string_view words = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    std::string_view first = next_word(words);
    if (first.empty() || first.front() == '#') continue;
    Entry e;
    e.revoked = first == "@revoked";
    e.line = line_no;
    if (first.front() == '@' && !e.revoked) continue;
    if (e.revoked && (first = next_word(words)).empty()) continue;
    std::string_view type = next_word(words), key = next_word(words);
    auto blob = key.empty() ? std::nullopt : unbase64(key);
    if (!blob || key_type_name(*blob) != type) continue;
    if (first.rfind("|1|", 0) == 0) {  // |1|base64(salt)|base64(hash); one that is not, never
      e.hashed = true;                 // matches
      auto bar = first.find('|', 3);
      auto salt = bar == std::string::npos ? std::nullopt : unbase64(first.substr(3, bar - 3));
      auto hash = bar == std::string::npos ? std::nullopt : unbase64(first.substr(bar + 1));
      if (salt && hash) e.salted.emplace(*salt), e.hash = std::move(*hash);
    } else {
      std::string_view patterns = first;
      while (!patterns.empty()) {
        auto comma = patterns.find(',');
        e.patterns.push_back(lower_case(patterns.substr(0, comma)));
        patterns.remove_prefix(comma == std::string_view::npos ? patterns.size() : comma + 1);
      }
    }
    e.blob = std::move(*blob);
    entries.push_back(std::move(e));
  }
  return entries;
}

KnownHosts::HostFile::HostFile(std::string_view text) : entries_(parse(text)) {
  auto literal = [](const std::string& p) { return p.find_first_of("*?!") == std::string::npos; };
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    auto type = std::string(key_type_name(e.blob));
    if (!e.revoked && std::find(types_.begin(), types_.end(), type) == types_.end())
      types_.push_back(type);
    if (e.hashed || !std::all_of(e.patterns.begin(), e.patterns.end(), literal)) {
      (e.revoked ? scanned_revoked_ : scanned_).push_back(i);
      continue;
    }
    for (const auto& name : e.patterns) {
      auto& lines = by_name_[name];
      if (lines.empty() || lines.back() != i) lines.push_back(i);  // "a,a" once
    }
  }
}

std::vector<const KnownHosts::Entry*> KnownHosts::HostFile::lookup(const std::string& name) {
  std::vector<std::size_t> lines, found;
  if (auto filed = by_name_.find(name); filed != by_name_.end()) lines = filed->second;
  for (const auto* list : {&scanned_, &scanned_revoked_})
    for (std::size_t i : *list)
      if (matches(i, name)) found.push_back(i);
  lines.insert(lines.end(), found.begin(), found.end());
  file_found(name, found);
  std::sort(lines.begin(), lines.end());
  std::vector<const Entry*> out;
  for (std::size_t i : lines) out.push_back(&entries_[i]);
  return out;
}

// The key is compared before any name is hashed, and once an entry with the key matches, only
// @revoked ones are matched still. With the entries already found filed by name, a cluster whose
// hosts share one key (cloned images) costs no hash where a plain line names the host, and about
// one per host when the lines are hashed and in the order the hosts are looked up.
const KnownHosts::Entry* KnownHosts::HostFile::match_key(const std::string& name,
                                                         std::string_view blob, bool& matched) {
  const Entry* revoked = nullptr;
  auto note = [&](const Entry& e) {
    if (!e.revoked)
      matched = true;
    else if (!revoked || &e < revoked)
      revoked = &e;
  };
  if (auto filed = by_name_.find(name); filed != by_name_.end())
    for (std::size_t i : filed->second)
      if (entries_[i].blob == blob) note(entries_[i]);
  std::vector<std::size_t> found;
  for (std::size_t i : scanned_revoked_)
    if (entries_[i].blob == blob && matches(i, name)) found.push_back(i);
  for (std::size_t n = 0; !matched && n < scanned_.size(); ++n) {
    std::size_t i = scanned_[n];
    if (entries_[i].blob == blob && matches(i, name)) found.push_back(i), matched = true;
  }
  for (std::size_t i : found) note(entries_[i]);
  file_found(name, found);
  return revoked;
}

// ssh's match_hostname: the hashed name, or some pattern and no `!pattern` matches.
bool KnownHosts::HostFile::matches(std::size_t i, const std::string& name) const {
  const Entry& entry = entries_[i];
  if (!entry.hashed) return host_matches(name, entry.patterns);
  if (!entry.salted) return false;
  std::string mac = entry.salted->mac(name);
  return mac.size() == entry.hash.size() &&
         CRYPTO_memcmp(mac.data(), entry.hash.data(), mac.size()) == 0;
}

// Files the hashed entries among `found` (which matched `name`) under `name`: no other name will
// be hashed for them.
void KnownHosts::HostFile::file_found(const std::string& name,
                                      const std::vector<std::size_t>& found) {
  for (std::size_t i : found) {
    if (!entries_[i].hashed) continue;
    std::erase(entries_[i].revoked ? scanned_revoked_ : scanned_, i);
    auto& lines = by_name_[name];
    lines.insert(std::upper_bound(lines.begin(), lines.end(), i), i);
  }
}

// As ssh's check_key_in_hostkeys: a revoked key is refused first; then any entry with this
// key is a match; else one of its type with another key is a change; else one of another type.
// The entries with this key are looked at first: they alone decide a match or a revocation, and
// only they need a hashed name computed (a cluster's known_hosts may hold thousands of those).
KnownHosts::Verdict KnownHosts::check(const std::string& name, std::string_view blob) {
  bool matched = false;
  for (std::size_t f = 0; f < entries_.size(); ++f) {
    if (const Entry* e = entries_[f].match_key(name, blob, matched))
      return Verdict{Found::revoked, files_[f] + ":" + std::to_string(e->line), ""};
  }
  if (matched) return Verdict{Found::match, "", ""};
  Verdict changed, other_type;
  for (std::size_t f = 0; f < entries_.size(); ++f) {
    for (const Entry* e : entries_[f].lookup(name)) {
      if (e->revoked) continue;
      std::string where = files_[f] + ":" + std::to_string(e->line);
      auto type = std::string(key_type_name(e->blob));
      if (type == key_type_name(blob)) {
        if (changed.where.empty()) changed = Verdict{Found::changed, where, type};
      } else if (other_type.where.empty()) {
        other_type = Verdict{Found::other_type, where, type};
      }
    }
  }
  if (!changed.where.empty()) return changed;
  if (!other_type.where.empty()) return other_type;
  return Verdict{};
}

// Under the file's lock the file is read again: another pdx may have recorded this host since
// it was loaded, and then that entry decides (`verdict` is updated either way).
Result<void> KnownHosts::record(const std::string& name, const HostKey& key, HashNames hash,
                                Verdict& verdict) {
  if (!writable_) return Error{"no UserKnownHostsFile to record it in"};
  if (!recordable(name)) return Error{"its name cannot be written to known_hosts"};
  const std::string& path = files_.front();
  Fd fd;
  TRY(open_locked(path, fd));
  auto read = read_text_fd(fd.get());
  if (!read) return Error{"cannot read " + path + ": " + read.error()};
  std::string text = std::move(*read);
  entries_.front() = HostFile(text);
  verdict = check(name, key.blob);
  if (verdict.found != Found::unknown) return {};
  std::string host_field = hash == HashNames::yes ? hashed_name(name) : name;
  std::string out = (!text.empty() && text.back() != '\n' ? "\n" : "") + host_field + " " +
                    std::string(key_type_name(key.blob)) + " " + base64(key.blob) + "\n";
  if (::write(fd.get(), out.data(), out.size()) != static_cast<ssize_t>(out.size()))
    return Error{"cannot write " + path + ": " + std::strerror(errno)};
  entries_.front() = HostFile(text + out);  // the new line included, with its number
  verdict = Verdict{Found::match, "", ""};
  return {};
}

Result<void> KnownHosts::verify(std::string_view host, int port, const HostKey& key,
                                HostKeyPolicy policy, HashNames hash) {
  if (!load_error_.empty()) return Error{load_error_};
  std::string name = known_hosts_name(host, port);
  std::lock_guard lock(mutex_);
  Verdict verdict = check(name, key.blob);
  if (verdict.found == Found::unknown && policy != HostKeyPolicy::strict) {
    auto recorded = record(name, key, hash, verdict);
    if (!recorded && policy == HostKeyPolicy::accept_new)
      return Error{"cannot record the host key: " + recorded.error() + "; nothing was run"};
    if (!recorded)
      warn_("cannot record the host key of " + name + ": " + recorded.error() +
            " (StrictHostKeyChecking=no: going on)");
    if (!recorded) return {};
  }
  return judge(key, verdict);
}

Result<void> KnownHosts::judge(const HostKey& key, const Verdict& verdict) const {
  switch (verdict.found) {
    case Found::match:
      return {};
    case Found::revoked:
      return Error{"REVOKED host key (" + fingerprint(key) + "), marked @revoked at " +
                   verdict.where + "; nothing was run"};
    case Found::changed:
      return Error{"HOST KEY CHANGED (now " + fingerprint(key) + "), it does not match " +
                   verdict.where +
                   ": possible man-in-the-middle attack; nothing was run. If the change is "
                   "expected, remove that line"};
    case Found::other_type:
      return Error{"host key is " + fingerprint(key) + ", but a key of type " + verdict.type +
                   " is known at " + verdict.where +
                   " and the server did not offer it: possible man-in-the-middle attack; nothing "
                   "was run"};
    case Found::unknown:
      break;
  }
  return Error{"host key is not known (" + fingerprint(key) +
               "); nothing was run. To accept it, check the fingerprint and run with "
               "-o StrictHostKeyChecking=accept-new"};
}

std::string prefer_known_types(std::string_view algorithms,
                               const std::vector<std::string>& known_types) {
  std::vector<std::string> known, rest;
  std::stringstream in{std::string(algorithms)};
  for (std::string algorithm; std::getline(in, algorithm, ',');) {
    // rsa-sha2-* sign with an ssh-rsa key.
    std::string type = algorithm.rfind("rsa-sha2-", 0) == 0 ? "ssh-rsa" : algorithm;
    bool is_known = std::find(known_types.begin(), known_types.end(), type) != known_types.end();
    (is_known ? known : rest).push_back(algorithm);
  }
  std::string order;
  for (const auto& list : {known, rest})
    for (const auto& algorithm : list) order += (order.empty() ? "" : ",") + algorithm;
  return order;
}

std::vector<std::string> KnownHosts::known_types(std::string_view host, int port) {
  std::string name = known_hosts_name(host, port);
  std::lock_guard lock(mutex_);
  std::vector<std::string> types;
  auto add = [&types](const std::string& type) {
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
  };
  for (const auto& file : entries_)
    for (const auto& type : file.types()) add(type);
  // One type in all the files (the usual case): that is the one to ask for, and no host's
  // hashed names need computing.
  if (types.size() <= 1) return types;
  types.clear();
  for (auto& file : entries_)
    for (const Entry* e : file.lookup(name))
      if (!e->revoked) add(std::string(key_type_name(e->blob)));
  return types;
}

}  // namespace pdx
