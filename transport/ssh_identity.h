#pragma once
// A private key file read once per run. Re-reading and re-decoding a key for every host
// (libssh2_userauth_publickey_fromfile) was ~40% of the client CPU of a 512-host run; an
// Identity is read on first use and then signs for every host.
//
// An unencrypted ed25519, ECDSA (nistp256/384/521) or RSA key, in OpenSSH's format (what
// ssh-keygen writes) or PEM, is decoded here once and signs through OpenSSL
// (libssh2_userauth_publickey with sign()); any other key is kept as bytes for
// libssh2_userauth_publickey_frommemory. Thread-safe once loaded (const).

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "transport/ssh_keys.h"

namespace pdx {

class Identity {
 public:
  /// Reads `path` (and `path`.pub when there is one). Error: the file cannot be read.
  static Result<std::shared_ptr<const Identity>> load(const std::string& path);
  /// Parses key text (tests; `path` names it in messages).
  static Result<std::shared_ptr<const Identity>> parse(const std::string& path,
                                                       std::string private_text,
                                                       std::string public_text);
  ~Identity();

  const std::string& path() const { return path_; }
  /// Protected by a passphrase: usable only through an agent.
  bool encrypted() const { return encrypted_; }
  /// The public key's SSH wire encoding; empty when neither the key nor a .pub file gives it.
  const std::string& public_blob() const { return public_blob_; }
  /// The key's SSH type name (ssh-ed25519, ssh-rsa, ...), from its public blob, or "ssh-rsa"
  /// for a PEM RSA key without one; empty when unknown.
  std::string_view key_type() const;
  /// True when sign() works (an unencrypted key of a type above); else use the bytes below.
  bool can_sign() const { return static_cast<bool>(key_); }
  /// Signs `request`, an SSH user authentication request, with the algorithm it names (for RSA:
  /// rsa-sha2-512, rsa-sha2-256 or ssh-rsa): the signature blob that goes after the algorithm
  /// name. Empty on failure.
  std::string sign(std::string_view request) const;
  const std::string& private_text() const { return private_text_; }
  const std::string& public_text() const { return public_text_; }  // the .pub file, or empty

  explicit Identity(std::string path) : path_(std::move(path)) {}  // use load() or parse()

 private:
  std::string path_;
  std::string private_text_, public_text_;
  std::string public_blob_;
  bool encrypted_ = false;
  PrivateKey key_;
};

/// The SSH type name a public key blob starts with (ssh-ed25519, ssh-rsa, ...); empty if
/// malformed.
std::string_view key_type_of(std::string_view public_blob);

/// The signature algorithm named in the data of an SSH publickey request (RFC 4252 section 7:
/// session id, 50, user, service, "publickey", TRUE, algorithm, key blob). Empty if malformed.
std::string_view signed_algorithm(std::string_view data);

/// True for RSA key types: ssh-rsa and its certificates.
bool is_rsa(std::string_view key_type);

}  // namespace pdx
