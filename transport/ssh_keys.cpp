#include "transport/ssh_keys.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "transport/ssh_wire.h"

namespace pdx {
namespace {

constexpr std::size_t kEd25519Size = 32;

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
constexpr std::string_view kEcdsaPrefix = "ecdsa-sha2-";

/// The ed25519 key of a private section's "ssh-ed25519" entry (public, then seed + public).
EVP_PKEY* ed25519_key(WireReader& r) {
  std::string_view pub, priv;
  if (!r.string(pub) || !r.string(priv) || priv.size() != 2 * kEd25519Size) return nullptr;
  return EVP_PKEY_new_raw_private_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(priv.data()), kEd25519Size);
}

/// A BIGNUM that is wiped when freed.
struct BnFree {
  void operator()(BIGNUM* n) const { BN_clear_free(n); }
};
using Bn = std::unique_ptr<BIGNUM, BnFree>;

/// An mpint's (or any big-endian unsigned) value in a secure BIGNUM; empty when out of memory.
Bn bn_of(std::string_view mpint) {
  Bn n(BN_secure_new());
  if (n && !BN_bin2bn(reinterpret_cast<const unsigned char*>(mpint.data()),
                      static_cast<int>(mpint.size()), n.get()))
    n.reset();
  return n;
}

/// An OpenSSL key of `type` ("EC", "RSA") from the parameters `build` holds; null on failure.
/// Secret numbers pushed as secure BIGNUMs are wiped with the parameters.
EVP_PKEY* key_from(const char* type, OSSL_PARAM_BLD* build) {
  OSSL_PARAM* params = build ? OSSL_PARAM_BLD_to_param(build) : nullptr;
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = params ? EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr) : nullptr;
  if (ctx && EVP_PKEY_fromdata_init(ctx) == 1)
    EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, params);
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  return key;
}

/// The EC key of a private section's "ecdsa-sha2-<curve>" entry (curve name, public point,
/// private scalar as an mpint).
EVP_PKEY* ecdsa_key(WireReader& r, const Curve& curve) {
  std::string_view name, point, scalar;
  if (!r.string(name) || name != curve.ssh_name || !r.string(point) || !r.string(scalar))
    return nullptr;
  Bn secret = bn_of(scalar);
  OSSL_PARAM_BLD* build = OSSL_PARAM_BLD_new();
  bool ok = secret && build &&
            OSSL_PARAM_BLD_push_utf8_string(build, OSSL_PKEY_PARAM_GROUP_NAME, curve.group, 0) &&
            OSSL_PARAM_BLD_push_octet_string(build, OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                             point.size()) &&
            OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_PRIV_KEY, secret.get());
  EVP_PKEY* key = ok ? key_from("EC", build) : nullptr;
  OSSL_PARAM_BLD_free(build);
  return key;
}

/// The RSA key of a private section's "ssh-rsa" entry (mpints n, e, d, iqmp, p, q), with the
/// CRT exponents OpenSSL signs four times faster with (d mod p-1, d mod q-1) computed here.
/// Null unless n = pq and iqmp q = 1 mod p: OpenSSL would quietly sign without CRT, or wrongly.
EVP_PKEY* rsa_key(WireReader& r) {
  std::array<std::string_view, 6> parts;  // n, e, d, iqmp, p, q
  for (auto& part : parts)
    if (!r.string(part)) return nullptr;
  std::array<Bn, 6> n;  // the same order
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (!(n[i] = bn_of(parts[i]))) return nullptr;
  auto& [modulus, e, d, iqmp, p, q] = n;
  Bn dmp1(BN_secure_new()), dmq1(BN_secure_new()), p1(BN_secure_new()), q1(BN_secure_new()),
      check(BN_secure_new());
  BN_CTX* ctx = BN_CTX_secure_new();
  bool ok = ctx && dmp1 && dmq1 && p1 && q1 && check &&
            BN_mul(check.get(), p.get(), q.get(), ctx) && BN_cmp(check.get(), modulus.get()) == 0 &&
            BN_mod_mul(check.get(), iqmp.get(), q.get(), p.get(), ctx) && BN_is_one(check.get()) &&
            BN_copy(p1.get(), p.get()) && BN_sub_word(p1.get(), 1) && BN_copy(q1.get(), q.get()) &&
            BN_sub_word(q1.get(), 1) && BN_mod(dmp1.get(), d.get(), p1.get(), ctx) &&
            BN_mod(dmq1.get(), d.get(), q1.get(), ctx);
  BN_CTX_free(ctx);
  OSSL_PARAM_BLD* build = ok ? OSSL_PARAM_BLD_new() : nullptr;
  ok = build && OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_N, modulus.get()) &&
       OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_E, e.get()) &&
       OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_D, d.get()) &&
       OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_FACTOR1, p.get()) &&
       OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_FACTOR2, q.get()) &&
       OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_EXPONENT1, dmp1.get()) &&
       OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_EXPONENT2, dmq1.get()) &&
       OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_COEFFICIENT1, iqmp.get());
  EVP_PKEY* key = ok ? key_from("RSA", build) : nullptr;
  OSSL_PARAM_BLD_free(build);
  return key;
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

/// Appends a (public) BIGNUM as an SSH mpint; false if it is negative or absent.
bool put_bn(std::string& out, const BIGNUM* n) {
  if (!n || BN_is_negative(n)) return false;
  std::vector<unsigned char> bytes(static_cast<std::size_t>(BN_num_bytes(n)));
  put_mpint(out, bytes.data(), static_cast<std::size_t>(BN_bn2bin(n, bytes.data())));
  return true;
}

/// RFC 5656's ecdsa_signature_blob (mpint r, mpint s) from OpenSSL's DER signature.
std::string ssh_ecdsa_signature(const unsigned char* der, std::size_t size) {
  std::string out;
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(size));
  if (!sig) return out;
  if (!put_bn(out, ECDSA_SIG_get0_r(sig)) || !put_bn(out, ECDSA_SIG_get0_s(sig))) out.clear();
  ECDSA_SIG_free(sig);
  return out;
}

/// The public blob of a key read from PEM, and how it signs; false for other key types.
bool describe_pem_key(EVP_PKEY* key, std::string& blob, KeyKind& kind, const EVP_MD*& digest) {
  blob.clear();
  if (EVP_PKEY_is_a(key, "ED25519")) {
    unsigned char pub[kEd25519Size];
    std::size_t size = sizeof pub;
    if (EVP_PKEY_get_raw_public_key(key, pub, &size) != 1) return false;
    put_string(blob, "ssh-ed25519");
    put_string(blob, std::string_view(reinterpret_cast<char*>(pub), size));
    kind = KeyKind::ed25519;
    return true;
  }
  if (EVP_PKEY_is_a(key, "EC")) {
    char group[32];
    unsigned char point[140];  // P-521 uncompressed: 133 bytes
    std::size_t point_size = 0;
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                       nullptr) != 1 ||
        EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point,
                                        sizeof point, &point_size) != 1)
      return false;
    for (const Curve& curve : kCurves) {
      if (std::string_view(group) != curve.group) continue;
      put_string(blob, std::string(kEcdsaPrefix) + std::string(curve.ssh_name));
      put_string(blob, curve.ssh_name);
      put_string(blob, std::string_view(reinterpret_cast<char*>(point), point_size));
      kind = KeyKind::ecdsa;
      digest = curve.digest();
      return true;
    }
    return false;
  }
  if (EVP_PKEY_is_a(key, "RSA")) {
    BIGNUM *n = nullptr, *e = nullptr;
    put_string(blob, "ssh-rsa");
    bool ok = EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_N, &n) == 1 &&
              EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_RSA_E, &e) == 1 && put_bn(blob, e) &&
              put_bn(blob, n);
    BN_free(n);
    BN_free(e);
    kind = KeyKind::rsa;
    return ok;
  }
  return false;
}

int no_passphrase(char*, int, int, void*) {
  return 0;  // an encrypted PEM key is not read here (it is for the agent)
}

}  // namespace

PrivateKey& PrivateKey::operator=(PrivateKey&& other) noexcept {
  if (this != &other) {
    EVP_PKEY_free(pkey_);
    pkey_ = std::exchange(other.pkey_, nullptr);
    kind_ = other.kind_;
    ecdsa_digest_ = other.ecdsa_digest_;
  }
  return *this;
}

PrivateKey openssh_private_key(std::string_view private_section) {
  WireReader r(private_section);
  std::uint32_t check1, check2;
  std::string_view type;
  if (!r.u32(check1) || !r.u32(check2) || check1 != check2 || !r.string(type)) return {};
  if (type == "ssh-ed25519") return {ed25519_key(r), KeyKind::ed25519};
  if (type == "ssh-rsa") return {rsa_key(r), KeyKind::rsa};
  for (const Curve& curve : kCurves)
    if (type.starts_with(kEcdsaPrefix) && type.substr(kEcdsaPrefix.size()) == curve.ssh_name)
      return {ecdsa_key(r, curve), KeyKind::ecdsa, curve.digest()};
  return {};
}

PrivateKey pem_private_key(std::string_view text, std::string& public_blob) {
  ERR_set_mark();  // a text OpenSSL cannot read leaves no errors for later callers
  BIO* bio = BIO_new_mem_buf(text.data(), static_cast<int>(text.size()));
  EVP_PKEY* pkey = bio ? PEM_read_bio_PrivateKey(bio, nullptr, no_passphrase, nullptr) : nullptr;
  BIO_free(bio);
  ERR_pop_to_mark();
  KeyKind kind = KeyKind::ed25519;
  const EVP_MD* digest = nullptr;
  if (pkey && describe_pem_key(pkey, public_blob, kind, digest)) return {pkey, kind, digest};
  EVP_PKEY_free(pkey);
  public_blob.clear();
  return {};
}

std::string PrivateKey::sign(std::string_view algorithm, const unsigned char* data,
                             std::size_t size) const {
  const EVP_MD* digest = ecdsa_digest_;
  if (kind_ == KeyKind::rsa) {
    digest = algorithm == "rsa-sha2-512"   ? EVP_sha512()
             : algorithm == "rsa-sha2-256" ? EVP_sha256()
             : algorithm == "ssh-rsa"      ? EVP_sha1()
                                           : nullptr;
    if (!digest) return {};  // not an algorithm for a plain RSA key
  }
  int max_size = pkey_ ? EVP_PKEY_get_size(pkey_) : 0;
  if (max_size <= 0) return {};
  std::vector<unsigned char> raw(static_cast<std::size_t>(max_size));
  std::size_t raw_size = raw.size();
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = ctx && EVP_DigestSignInit(ctx, nullptr, digest, nullptr, pkey_) == 1 &&
            EVP_DigestSign(ctx, raw.data(), &raw_size, data, size) == 1;
  EVP_MD_CTX_free(ctx);
  if (!ok) return {};
  if (kind_ == KeyKind::ecdsa) return ssh_ecdsa_signature(raw.data(), raw_size);
  return std::string(reinterpret_cast<const char*>(raw.data()), raw_size);
}

}  // namespace pdx
