#include "agent/sealed_record.h"

#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <climits>
#include <cstdlib>

#include "agent/payload_fields.h"

namespace pdx {

namespace {

const unsigned char* bytes_of(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

// HKDF-SHA256 (RFC 5869) of `size` bytes.
std::string hkdf(std::string_view secret, std::string_view salt, std::string_view info,
                 std::size_t size) {
  struct Free {
    void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
  };
  std::unique_ptr<EVP_PKEY_CTX, Free> ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nullptr));
  std::string out(size, '\0');
  std::size_t length = size;
  bool ok =
      ctx && EVP_PKEY_derive_init(ctx.get()) == 1 &&
      EVP_PKEY_CTX_set_hkdf_md(ctx.get(), EVP_sha256()) == 1 &&
      EVP_PKEY_CTX_set1_hkdf_salt(ctx.get(), bytes_of(salt), int(salt.size())) == 1 &&
      EVP_PKEY_CTX_set1_hkdf_key(ctx.get(), bytes_of(secret), int(secret.size())) == 1 &&
      EVP_PKEY_CTX_add1_hkdf_info(ctx.get(), bytes_of(info), int(info.size())) == 1 &&
      EVP_PKEY_derive(ctx.get(), reinterpret_cast<unsigned char*>(out.data()), &length) == 1 &&
      length == size;
  if (!ok) std::abort();  // OpenSSL without HKDF-SHA256: nothing to go on
  return out;
}

RecordKey direction_key(std::string_view secret, std::string_view context, std::string_view way) {
  std::string both = hkdf(secret, context, std::string("pdx link v1 ") + std::string(way),
                          RecordKey::kKeySize + RecordKey::kSaltSize);
  return RecordKey{both.substr(0, RecordKey::kKeySize), both.substr(RecordKey::kKeySize)};
}

// A context under `key` for AES-128-GCM, its key schedule made once.
evp_cipher_ctx_st* gcm_context(const RecordKey& key, bool encrypt) {
  if (key.key.size() != RecordKey::kKeySize || key.salt.size() != RecordKey::kSaltSize)
    std::abort();  // the caller's bug
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  if (!ctx ||
      EVP_CipherInit_ex(ctx, EVP_aes_128_gcm(), nullptr, bytes_of(key.key), nullptr, encrypt) != 1)
    std::abort();  // OpenSSL without AES-128-GCM: nothing to go on
  return ctx;
}

std::string nonce(std::string_view salt, std::uint64_t& sequence) {
  if (sequence == UINT64_MAX) std::abort();  // 2^64 records: never
  std::string iv(salt);
  put_uint(iv, sequence++, 8);
  return iv;
}

}  // namespace

LinkKeys link_keys(std::string_view secret, std::string_view context, LinkEnd end) {
  RecordKey up = direction_key(secret, context, "connector to listener");
  RecordKey down = direction_key(secret, context, "listener to connector");
  if (end == LinkEnd::connector) return LinkKeys{std::move(up), std::move(down)};
  return LinkKeys{std::move(down), std::move(up)};
}

void RecordSealer::Free::operator()(evp_cipher_ctx_st* ctx) const {
  EVP_CIPHER_CTX_free(ctx);
}

void RecordOpener::Free::operator()(evp_cipher_ctx_st* ctx) const {
  EVP_CIPHER_CTX_free(ctx);
}

RecordSealer::RecordSealer(const RecordKey& key) : ctx_(gcm_context(key, true)), salt_(key.salt) {}

void RecordSealer::seal(std::uint8_t kind, std::string_view plaintext, char* out) {
  if (plaintext.size() > INT_MAX / 2) std::abort();  // the caller's bug: no record is that large
  std::string header;
  put_uint(header, kind, 1);
  put_uint(header, plaintext.size(), 4);
  auto* to = reinterpret_cast<unsigned char*>(out);
  std::copy(header.begin(), header.end(), to);
  int n = 0, last = 0;
  bool ok =
      EVP_EncryptInit_ex(ctx_.get(), nullptr, nullptr, nullptr,
                         bytes_of(nonce(salt_, sequence_))) == 1 &&
      EVP_EncryptUpdate(ctx_.get(), nullptr, &n, bytes_of(header), int(header.size())) == 1 &&
      (plaintext.empty() || EVP_EncryptUpdate(ctx_.get(), to + kRecordHeader, &n,
                                              bytes_of(plaintext), int(plaintext.size())) == 1) &&
      EVP_EncryptFinal_ex(ctx_.get(), to + kRecordHeader + plaintext.size(), &last) == 1 &&
      EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_AEAD_GET_TAG, int(kRecordTag),
                          to + kRecordHeader + plaintext.size()) == 1;
  if (!ok) std::abort();
}

void RecordSealer::seal(std::uint8_t kind, std::string_view plaintext, std::string& out) {
  std::size_t at = out.size();
  out.resize(at + sealed_size(plaintext.size()));
  seal(kind, plaintext, out.data() + at);
}

RecordOpener::RecordOpener(const RecordKey& key, std::size_t max, std::string what)
    : ctx_(gcm_context(key, false)), salt_(key.salt), max_(max), what_(std::move(what)) {
  if (max_ > INT_MAX / 2) std::abort();  // the caller's bug
}

Result<RecordHeader> RecordOpener::header(std::string_view bytes) const {
  if (bytes.size() != kRecordHeader) std::abort();  // the caller's bug
  RecordHeader h{std::uint8_t(bytes[0]), std::uint32_t(get_uint(bytes.substr(1)))};
  if (h.length > max_) return Error{"a " + what_ + " over its limit", ErrorKind::bad_input};
  return h;
}

Result<std::string_view> RecordOpener::open(std::string_view header_bytes, char* body,
                                            std::size_t size) {
  RecordHeader h = TRY(header(header_bytes));
  if (failed_ || size != h.length + kRecordTag)
    return Error{"a " + what_ + " failed its check", ErrorKind::bad_input};
  auto* data = reinterpret_cast<unsigned char*>(body);
  int n = 0;
  bool ok = EVP_DecryptInit_ex(ctx_.get(), nullptr, nullptr, nullptr,
                               bytes_of(nonce(salt_, sequence_))) == 1 &&
            EVP_DecryptUpdate(ctx_.get(), nullptr, &n, bytes_of(header_bytes),
                              int(header_bytes.size())) == 1 &&
            (h.length == 0 || EVP_DecryptUpdate(ctx_.get(), data, &n, data, int(h.length)) == 1) &&
            EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_AEAD_SET_TAG, int(kRecordTag),
                                data + h.length) == 1 &&
            EVP_DecryptFinal_ex(ctx_.get(), data + h.length, &n) == 1;
  if (!ok) {
    failed_ = true;
    return Error{"a " + what_ + " failed its check", ErrorKind::bad_input};
  }
  return std::string_view(body, h.length);
}

Result<std::string> RecordOpener::open(std::string_view header_bytes, std::string body) {
  std::size_t length = TRY(open(header_bytes, body.data(), body.size())).size();
  body.resize(length);
  return body;
}

}  // namespace pdx
