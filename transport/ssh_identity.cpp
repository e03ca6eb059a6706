#include "transport/ssh_identity.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "transport/ssh_wire.h"

namespace pdx {
namespace {

constexpr std::string_view kOpenSshBegin = "-----BEGIN OPENSSH PRIVATE KEY-----";
constexpr std::string_view kOpenSshEnd = "-----END OPENSSH PRIVATE KEY-----";
constexpr std::string_view kMagic{"openssh-key-v1\0", 15};
constexpr std::size_t kEd25519Size = 32;

/// Overwrites a string's bytes (its whole buffer) before it is freed: it held key material.
void cleanse(std::string& s) {
  OPENSSL_cleanse(s.data(), s.capacity());
}

/// Decodes base64, ignoring white space. Key material passes through here: the intermediate
/// copy is sized once and wiped; the caller wipes the result.
std::string base64_decode(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) clean += c;
  std::string out;
  if (clean.size() % 4 == 0) {
    out.resize(clean.size() / 4 * 3);
    int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(clean.data()),
                            static_cast<int>(clean.size()));
    std::size_t pad = 0;
    while (pad < 2 && pad < clean.size() && clean[clean.size() - 1 - pad] == '=') ++pad;
    if (n >= 0) {
      out.resize(static_cast<std::size_t>(n) - pad);  // shrinking keeps the buffer
    } else {
      cleanse(out);
      out.clear();
    }
  }
  cleanse(clean);
  return out;
}

/// The whole regular file, read into one buffer of its size (a private key leaves no partial
/// copies behind).
std::string read_all(const std::string& path, bool& ok) {
  std::string text;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  ok = fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (ok) {
    text.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < text.size()) {
      auto n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);  // a file that shrank meanwhile: what was there
  }
  if (fd >= 0) ::close(fd);
  return text;
}

/// The openssh-key-v1 container: whether it is encrypted, its public key, and (unencrypted)
/// the private section. False if `text` is not in that format.
struct OpenSshKey {
  bool encrypted = false;
  std::string_view public_blob, private_section;
};
bool parse_openssh(std::string_view binary, OpenSshKey& key) {
  if (binary.substr(0, kMagic.size()) != kMagic) return false;
  WireReader r(binary.substr(kMagic.size()));
  std::string_view cipher, kdf, kdf_options;
  std::uint32_t count;
  if (!r.string(cipher) || !r.string(kdf) || !r.string(kdf_options) || !r.u32(count) ||
      count != 1 || !r.string(key.public_blob) || !r.string(key.private_section))
    return false;
  key.encrypted = cipher != "none";
  return true;
}

/// The ed25519 seed from an unencrypted private section; empty if it holds another key type.
std::string_view ed25519_seed(std::string_view private_section) {
  WireReader r(private_section);
  std::uint32_t check1, check2;
  std::string_view type, pub, priv;
  if (!r.u32(check1) || !r.u32(check2) || check1 != check2 || !r.string(type) ||
      type != "ssh-ed25519" || !r.string(pub) || !r.string(priv) || priv.size() != 2 * kEd25519Size)
    return {};
  return priv.substr(0, kEd25519Size);
}

/// The public key blob of a .pub file ("type base64 comment").
std::string public_blob_of(std::string_view pub_text) {
  auto start = pub_text.find(' ');
  if (start == std::string_view::npos) return {};
  auto end = pub_text.find_first_of(" \n", start + 1);
  return base64_decode(pub_text.substr(
      start + 1, end == std::string_view::npos ? std::string_view::npos : end - start - 1));
}

}  // namespace

Result<std::shared_ptr<const Identity>> Identity::load(const std::string& path) {
  bool ok = false, pub_ok = false;
  std::string text = read_all(path, ok);
  if (!ok) return Error{"cannot read identity " + path};
  std::string pub = read_all(path + ".pub", pub_ok);
  return parse(path, std::move(text), pub_ok ? std::move(pub) : std::string());
}

Result<std::shared_ptr<const Identity>> Identity::parse(const std::string& path,
                                                        std::string private_text,
                                                        std::string public_text) {
  auto id = std::make_shared<Identity>(path);
  id->private_text_ = std::move(private_text);
  id->public_text_ = std::move(public_text);
  id->public_blob_ = public_blob_of(id->public_text_);
  std::string_view text = id->private_text_;
  auto begin = text.find(kOpenSshBegin), end = text.find(kOpenSshEnd);
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) {
    // PEM (RSA, EC, PKCS#8): libssh2 reads it; only tell whether it needs a passphrase.
    id->encrypted_ = text.find("ENCRYPTED") != std::string_view::npos;
    return std::shared_ptr<const Identity>(std::move(id));
  }
  std::string binary =
      base64_decode(text.substr(begin + kOpenSshBegin.size(), end - begin - kOpenSshBegin.size()));
  OpenSshKey key;
  bool valid = parse_openssh(binary, key);
  if (valid) {
    id->encrypted_ = key.encrypted;
    id->public_blob_ = std::string(key.public_blob);
    if (auto seed = key.encrypted ? std::string_view() : ed25519_seed(key.private_section);
        !seed.empty())
      id->key_ = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr,
                                              reinterpret_cast<const unsigned char*>(seed.data()),
                                              seed.size());
  }
  cleanse(binary);  // held the private section: the ed25519 seed of an unencrypted key
  if (!valid) return Error{"identity " + path + " is not a valid key"};
  return std::shared_ptr<const Identity>(std::move(id));
}

Identity::~Identity() {
  EVP_PKEY_free(key_);
  cleanse(private_text_);
}

std::string_view Identity::key_type() const {
  if (!public_blob_.empty()) return key_type_of(public_blob_);
  if (private_text_.find("-----BEGIN RSA PRIVATE KEY-----") != std::string::npos) return "ssh-rsa";
  return {};
}

std::string_view key_type_of(std::string_view public_blob) {
  std::string_view type;
  return WireReader(public_blob).string(type) ? type : std::string_view();
}

bool is_rsa(std::string_view key_type) {
  return key_type.starts_with("ssh-rsa");
}

int Identity::sign(const unsigned char* data, std::size_t size, unsigned char** sig,
                   std::size_t* sig_size) const {
  unsigned char raw[64];
  std::size_t raw_size = sizeof raw;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = ctx && EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, key_) == 1 &&
            EVP_DigestSign(ctx, raw, &raw_size, data, size) == 1;
  EVP_MD_CTX_free(ctx);
  if (!ok) return -1;
  *sig = static_cast<unsigned char*>(std::malloc(raw_size));  // libssh2 frees it with free()
  if (!*sig) return -1;
  std::memcpy(*sig, raw, raw_size);
  *sig_size = raw_size;
  return 0;
}

}  // namespace pdx
