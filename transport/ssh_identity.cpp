#include "transport/ssh_identity.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <cctype>

#include "base/read_file.h"
#include "transport/ssh_wire.h"

namespace pdx {
namespace {

constexpr std::string_view kOpenSshBegin = "-----BEGIN OPENSSH PRIVATE KEY-----";
constexpr std::string_view kOpenSshEnd = "-----END OPENSSH PRIVATE KEY-----";
constexpr std::string_view kMagic{"openssh-key-v1\0", 15};

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
  auto text = read_text_file(path);
  if (!text) return Error{"cannot read identity " + path + ": " + text.error()};
  auto pub = read_text_file(path + ".pub");
  return parse(path, std::move(*text), pub ? std::move(*pub) : std::string());
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
    // PEM (PKCS#1, SEC1, PKCS#8). Encrypted: for the agent. Else read here when OpenSSL reads
    // it as a key type pdx signs with; any other is left to libssh2.
    id->encrypted_ = text.find("ENCRYPTED") != std::string_view::npos;
    std::string blob;
    if (!id->encrypted_) id->key_ = pem_private_key(text, blob);
    if (id->key_) id->public_blob_ = std::move(blob);
    return std::shared_ptr<const Identity>(std::move(id));
  }
  std::string binary =
      base64_decode(text.substr(begin + kOpenSshBegin.size(), end - begin - kOpenSshBegin.size()));
  OpenSshKey key;
  bool valid = parse_openssh(binary, key);
  if (valid) {
    id->encrypted_ = key.encrypted;
    id->public_blob_ = std::string(key.public_blob);
    if (!key.encrypted) id->key_ = openssh_private_key(key.private_section);
  }
  cleanse(binary);  // held the private section: the private key of an unencrypted key
  if (!valid) return Error{"identity " + path + " is not a valid key"};
  return std::shared_ptr<const Identity>(std::move(id));
}

Identity::~Identity() {
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

std::string Identity::sign(std::string_view request) const {
  return key_.sign(signed_algorithm(request),
                   reinterpret_cast<const unsigned char*>(request.data()), request.size());
}

std::string_view signed_algorithm(std::string_view data) {
  WireReader r(data);
  std::string_view session_id, user, service, method, algorithm;
  unsigned char request, has_signature;
  if (r.string(session_id) && r.byte(request) && r.string(user) && r.string(service) &&
      r.string(method) && r.byte(has_signature) && r.string(algorithm))
    return algorithm;
  return {};
}

}  // namespace pdx
