#pragma once
// Sealed records: the encrypted and authenticated framing of a pdx data link (the relay's
// agent/relay_link.h), AES-128-GCM through OpenSSL's EVP. Runs on the host side too.
//
//   record = kind (u8) | length (u32, big-endian) | ciphertext (length bytes) | tag (16 bytes)
//   nonce  = the direction's 4-byte salt | the record's u64 sequence number (big-endian)
//   authenticated with it: kind and length
//
// Each direction of a link has a key and salt of its own, derived (HKDF-SHA256) from the run's
// secret and the link's nonces (link_keys()): fresh per run, per link and per direction, so a
// nonce is never used twice under one key, and a record cannot be sent back to its sender. Both
// ends number their records from 0: a record altered, replayed, reordered, dropped or sealed
// under another key fails its check, and so does every record after it (the opener is then
// done: a link that failed ends). A length over the opener's bound is refused from the header
// alone, before its bytes are read.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

struct evp_cipher_ctx_st;  // OpenSSL's EVP_CIPHER_CTX

namespace pdx {

inline constexpr std::size_t kRecordHeader = 5;  // kind, length
inline constexpr std::size_t kRecordTag = 16;
/// The size of a record holding `length` bytes.
constexpr std::size_t sealed_size(std::size_t length) {
  return kRecordHeader + length + kRecordTag;
}

/// One direction's key and nonce salt.
struct RecordKey {
  static constexpr std::size_t kKeySize = 16, kSaltSize = 4;
  std::string key, salt;
};
/// A link's two directions, as one end sees them.
struct LinkKeys {
  RecordKey send, receive;
};
enum class LinkEnd { connector, listener };
/// The keys of the link whose handshake was `context` (its nonces, both ends'), under `secret`,
/// as `end` sees them: what the connector sends under, the listener receives under.
LinkKeys link_keys(std::string_view secret, std::string_view context, LinkEnd end);

struct RecordHeader {
  std::uint8_t kind = 0;
  std::uint32_t length = 0;  // of the plaintext; kRecordTag bytes follow it
};

/// Seals one direction's records, numbered from 0. One thread at a time.
class RecordSealer {
 public:
  explicit RecordSealer(const RecordKey& key);
  /// Writes the record of `kind` holding `plaintext` to `out`, sealed_size(plaintext.size())
  /// bytes.
  void seal(std::uint8_t kind, std::string_view plaintext, char* out);
  /// Appends it to `out`.
  void seal(std::uint8_t kind, std::string_view plaintext, std::string& out);

 private:
  struct Free {
    void operator()(evp_cipher_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_cipher_ctx_st, Free> ctx_;
  std::string salt_;
  std::uint64_t sequence_ = 0;
};

/// Opens one direction's records, in the order they were sealed. `what` names a record in its
/// errors ("relay chunk": "a relay chunk failed its check"). One thread at a time.
class RecordOpener {
 public:
  RecordOpener(const RecordKey& key, std::size_t max, std::string what);
  /// A record's header (kRecordHeader bytes): an Error when its length is over the bound.
  Result<RecordHeader> header(std::string_view bytes) const;
  /// The plaintext of the record of `header` whose length + kRecordTag bytes are `body`,
  /// decrypted in place: an Error when it fails its check, and for every record after.
  Result<std::string> open(std::string_view header, std::string body);
  /// The same in place, `size` bytes at `body`: the plaintext, its first header.length bytes.
  Result<std::string_view> open(std::string_view header, char* body, std::size_t size);

 private:
  struct Free {
    void operator()(evp_cipher_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_cipher_ctx_st, Free> ctx_;
  std::string salt_;
  std::size_t max_;
  std::string what_;
  std::uint64_t sequence_ = 0;
  bool failed_ = false;
};

}  // namespace pdx
