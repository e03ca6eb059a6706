#pragma once
// Private keys decoded once into OpenSSL keys, from both formats key files come in (OpenSSH's
// openssh-key-v1 and PEM), and SSH signatures made with them: ed25519 (RFC 8709), ECDSA on
// nistp256/384/521 (RFC 5656) and RSA with SHA-1, SHA-256 or SHA-512 (RFC 8332).
#include <openssl/evp.h>

#include <string>
#include <string_view>

namespace pdx {

enum class KeyKind { ed25519, ecdsa, rsa };

/// An OpenSSL private key and how SSH signs with it. Owns `pkey`; movable, not copyable.
class PrivateKey {
 public:
  PrivateKey() = default;
  PrivateKey(EVP_PKEY* pkey, KeyKind kind, const EVP_MD* ecdsa_digest = nullptr)
      : pkey_(pkey), kind_(kind), ecdsa_digest_(ecdsa_digest) {}
  PrivateKey(PrivateKey&& other) noexcept { *this = std::move(other); }
  PrivateKey& operator=(PrivateKey&& other) noexcept;
  ~PrivateKey() { EVP_PKEY_free(pkey_); }

  explicit operator bool() const { return pkey_ != nullptr; }
  KeyKind kind() const { return kind_; }
  /// The signature blob that goes after the algorithm name in an SSH signature (ed25519: 64
  /// bytes; ECDSA: mpint r, mpint s; RSA: PKCS#1 v1.5 with the hash `algorithm` names:
  /// rsa-sha2-512, rsa-sha2-256, else ssh-rsa's SHA-1). Empty on failure.
  std::string sign(std::string_view algorithm, const unsigned char* data, std::size_t size) const;

 private:
  EVP_PKEY* pkey_ = nullptr;
  KeyKind kind_ = KeyKind::ed25519;
  const EVP_MD* ecdsa_digest_ = nullptr;  // the hash RFC 5656 pairs with the curve
};

/// The key of an unencrypted openssh-key-v1 private section (ssh-ed25519, ecdsa-sha2-nistp*,
/// ssh-rsa); empty for another type or a malformed section.
PrivateKey openssh_private_key(std::string_view private_section);

/// The key in unencrypted PEM text (PKCS#1, SEC1 or PKCS#8), with its public key in SSH's wire
/// encoding in `public_blob`; empty for a type pdx does not sign with, or text OpenSSL cannot
/// read without a passphrase.
PrivateKey pem_private_key(std::string_view text, std::string& public_blob);

}  // namespace pdx
