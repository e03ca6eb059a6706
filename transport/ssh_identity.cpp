#include "transport/ssh_identity.h"

#include <fcntl.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/params.h>
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

/// An ECDSA curve pdx signs with: its name in SSH key blobs, OpenSSL's group name, and the
/// digest RFC 5656 section 6.2.1 pairs with it.
struct Curve {
  std::string_view ssh_name;
  const char* group;
  const EVP_MD* (*digest)();
};
constexpr Curve kCurves[] = {{"nistp256", "prime256v1", EVP_sha256},
                             {"nistp384", "secp384r1", EVP_sha384},
                             {"nistp521", "secp521r1", EVP_sha512}};

/// The ed25519 key of a private section's "ssh-ed25519" entry (public, then seed + public).
EVP_PKEY* ed25519_key(WireReader& r) {
  std::string_view pub, priv;
  if (!r.string(pub) || !r.string(priv) || priv.size() != 2 * kEd25519Size) return nullptr;
  return EVP_PKEY_new_raw_private_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(priv.data()), kEd25519Size);
}

/// The EC key of a private section's "ecdsa-sha2-<curve>" entry (curve name, public point,
/// private scalar as an mpint).
EVP_PKEY* ecdsa_key(WireReader& r, const Curve& curve) {
  std::string_view name, point, scalar;
  if (!r.string(name) || name != curve.ssh_name || !r.string(point) || !r.string(scalar))
    return nullptr;
  while (!scalar.empty() && scalar.front() == 0) scalar.remove_prefix(1);  // mpint sign byte
  unsigned char native[66];  // OSSL_PARAM's BN: the scalar in native (little-endian) order
  if (scalar.empty() || scalar.size() > sizeof native) return nullptr;
  for (std::size_t i = 0; i < scalar.size(); ++i)
    native[i] = static_cast<unsigned char>(scalar[scalar.size() - 1 - i]);
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, const_cast<char*>(curve.group),
                                       0),
      OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, const_cast<char*>(point.data()),
                                        point.size()),
      OSSL_PARAM_construct_BN(OSSL_PKEY_PARAM_PRIV_KEY, native, scalar.size()),
      OSSL_PARAM_construct_end()};
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr);
  if (ctx && EVP_PKEY_fromdata_init(ctx) == 1)
    EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, params);
  EVP_PKEY_CTX_free(ctx);
  OPENSSL_cleanse(native, sizeof native);
  return key;
}

/// The key of an unencrypted private section, and the digest its signatures use (none for
/// ed25519); no key for a type pdx leaves to libssh2 (RSA) or a malformed section.
EVP_PKEY* private_key(std::string_view private_section, const EVP_MD*& digest) {
  WireReader r(private_section);
  std::uint32_t check1, check2;
  std::string_view type;
  digest = nullptr;
  if (!r.u32(check1) || !r.u32(check2) || check1 != check2 || !r.string(type)) return nullptr;
  if (type == "ssh-ed25519") return ed25519_key(r);
  constexpr std::string_view kEcdsa = "ecdsa-sha2-";
  for (const Curve& curve : kCurves) {
    if (!type.starts_with(kEcdsa) || type.substr(kEcdsa.size()) != curve.ssh_name) continue;
    digest = curve.digest();
    return ecdsa_key(r, curve);
  }
  return nullptr;
}

/// Appends `bytes` (big-endian, unsigned) as an SSH mpint: no leading zeros, but a zero byte
/// first when the top bit is set, so it does not read as negative.
void put_mpint(std::string& out, const unsigned char* bytes, std::size_t size) {
  while (size > 0 && *bytes == 0) ++bytes, --size;
  bool pad = size > 0 && (*bytes & 0x80);
  put_u32(out, static_cast<std::uint32_t>(size + pad));
  if (pad) out += '\0';
  out.append(reinterpret_cast<const char*>(bytes), size);
}

/// RFC 5656's ecdsa_signature_blob (mpint r, mpint s) from OpenSSL's DER signature.
std::string ssh_ecdsa_signature(const unsigned char* der, std::size_t size) {
  std::string out;
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(size));
  if (!sig) return out;
  for (const BIGNUM* n : {ECDSA_SIG_get0_r(sig), ECDSA_SIG_get0_s(sig)}) {
    unsigned char bytes[66];  // P-521's order: 66 bytes
    if (BN_num_bytes(n) > static_cast<int>(sizeof bytes)) {
      out.clear();
      break;
    }
    put_mpint(out, bytes, static_cast<std::size_t>(BN_bn2bin(n, bytes)));
  }
  ECDSA_SIG_free(sig);
  return out;
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
    if (!key.encrypted) id->key_ = private_key(key.private_section, id->digest_);
  }
  cleanse(binary);  // held the private section: the private key of an unencrypted key
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
  unsigned char raw[160];  // ed25519: 64 bytes; ECDSA P-521 in DER: at most 139
  std::size_t raw_size = sizeof raw;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = ctx && EVP_DigestSignInit(ctx, nullptr, digest_, nullptr, key_) == 1 &&
            EVP_DigestSign(ctx, raw, &raw_size, data, size) == 1;
  EVP_MD_CTX_free(ctx);
  if (!ok) return -1;
  std::string ecdsa;
  const unsigned char* out = raw;
  if (digest_) {  // ECDSA: DER to SSH's two mpints
    ecdsa = ssh_ecdsa_signature(raw, raw_size);
    if (ecdsa.empty()) return -1;
    out = reinterpret_cast<const unsigned char*>(ecdsa.data());
    raw_size = ecdsa.size();
  }
  *sig = static_cast<unsigned char*>(std::malloc(raw_size));  // libssh2 frees it with free()
  if (!*sig) return -1;
  std::memcpy(*sig, out, raw_size);
  *sig_size = raw_size;
  return 0;
}

}  // namespace pdx
