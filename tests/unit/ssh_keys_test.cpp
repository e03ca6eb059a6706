#include "transport/ssh_keys.h"

#include <gtest/gtest.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <string>
#include <tuple>

#include "transport/ssh_identity.h"
#include "transport/ssh_wire.h"

namespace pdx {
namespace {

// Test-only keys. An RSA key made with ssh-keygen -t rsa -b 2048, and the same key converted
// to PEM (ssh-keygen -p -m PEM); an ECDSA key made with ssh-keygen -t ecdsa -b 256, and the same
// key as PEM (SEC1) and PKCS#8 (openssl pkcs8 -topk8 -nocrypt); ECDSA keys on the other curves
// (-b 384, -b 521).
const char* const kRsa = R"(-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABFwAAAAdzc2gtcn
NhAAAAAwEAAQAAAQEAy6b9btWnNAlBjNnY7PpL42517pBKl00bWNu0sHumEW9YpxgQftrW
bYYw77LYQEVYyriChlBzKRzEFIeeoaoN4ZNN2opTDgGHuzdi7HL0k4gr+e27FM+FluMpUW
qi+5mtFtCSYiSaP8YzmmB1ihmMeIV0fU+kT9RD5kRq1Zgyp+CA21KDoZ6f47/A8Pl2KQGE
YOOROzCnxAUiQfI9NdDQ9WuKMC8s/1+/oOvqvnv016P176hzxDC/BGf+b+m9bLSXgjnB1l
NMlYS55A2Uri+ss0e0tTTyG/jRb+d9Ivn/aywQqib+FbgfH9j44it8nK4QoVSvdBYdi1iH
EmrtB+AOcwAAA8BOfvr4Tn76+AAAAAdzc2gtcnNhAAABAQDLpv1u1ac0CUGM2djs+kvjbn
XukEqXTRtY27Swe6YRb1inGBB+2tZthjDvsthARVjKuIKGUHMpHMQUh56hqg3hk03ailMO
AYe7N2LscvSTiCv57bsUz4WW4ylRaqL7ma0W0JJiJJo/xjOaYHWKGYx4hXR9T6RP1EPmRG
rVmDKn4IDbUoOhnp/jv8Dw+XYpAYRg45E7MKfEBSJB8j010ND1a4owLyz/X7+g6+q+e/TX
o/XvqHPEML8EZ/5v6b1stJeCOcHWU0yVhLnkDZSuL6yzR7S1NPIb+NFv530i+f9rLBCqJv
4VuB8f2PjiK3ycrhChVK90Fh2LWIcSau0H4A5zAAAAAwEAAQAAAQAay6MG5Ue1ug4M6VD4
hUpc51jPBd86nyOdAnN40RwdqSfh/HGXL1YNXR2tPDvl4Pn42mQaJhWw8B8AkIOXw9dFue
sBeTfKXPst7/CtKcbybnVS0ivOZiuumb8C/mPpdOPoX5MTJLvC7mI1ysFMZWYtKWoVXthA
xK4WayQfbIIlwlDnZeOkobrz13RrHxD0nIZcU8f8RkbgcxA67C7BiJjEnI9OJ4s21PmXph
iqTJ012mvrnNadKIu4J3PM1N+C5jybGjOrFDS3PgKkBgUYpwoLYQXiycL45xUjv7DP/yrx
Rr0laeASGC5k907itN4/ByCsHU9hyLXYlCZNH4rdLHmxAAAAgBEhBAeh1MSIHUlr8UR4YJ
PdDy+4dwHw+A7ehMW0XE1mtRipthFGFqjnwXCdCZ/wvLkl/zccvNTJhVy1iNOVgfTLetdg
PF/dhs1jeb+tsVJTfv2TdBVcc4/WvD1uJebtS5eU54WdmrJb1wuM8FAb4QA4aZgqoAiLd3
1Rq40e6TKaAAAAgQD9kokliJUB//WkYaRlyH9R9HjCWM2nWYlPE7qwqCOt5j6YmDj8Yo2u
IB5AuBWBfonmHmBmaGqgzneiGm06ESdfbiG2hGFT3AvCfJKv297j8tSPYuR+Oy3E2RtjoJ
yyTeTFChLDDVSLGMo9UZOls9H8/hMJtfoMzqnK5mNVR/SgSQAAAIEAzZobuJJNWPeFG9wm
il/uJL3ggw81N9oGAKm8lzhIdLH5nZW9U4tUJhaPIb7BMRmjwvvcfFUeeSdyMBcfGrbKXI
Z814krL8C5e2VxEEPPFgwIlmiuCVZx+9mZs86pzyKDV3756aEJlEpW6KF+ML+r17C8PotP
hpcJyrYGOj2jcNsAAAAEdGVzdAECAwQFBgc=
-----END OPENSSH PRIVATE KEY-----
)";
const char* const kRsaPem = R"(-----BEGIN RSA PRIVATE KEY-----
MIIEpAIBAAKCAQEAy6b9btWnNAlBjNnY7PpL42517pBKl00bWNu0sHumEW9YpxgQ
ftrWbYYw77LYQEVYyriChlBzKRzEFIeeoaoN4ZNN2opTDgGHuzdi7HL0k4gr+e27
FM+FluMpUWqi+5mtFtCSYiSaP8YzmmB1ihmMeIV0fU+kT9RD5kRq1Zgyp+CA21KD
oZ6f47/A8Pl2KQGEYOOROzCnxAUiQfI9NdDQ9WuKMC8s/1+/oOvqvnv016P176hz
xDC/BGf+b+m9bLSXgjnB1lNMlYS55A2Uri+ss0e0tTTyG/jRb+d9Ivn/aywQqib+
FbgfH9j44it8nK4QoVSvdBYdi1iHEmrtB+AOcwIDAQABAoIBABrLowblR7W6Dgzp
UPiFSlznWM8F3zqfI50Cc3jRHB2pJ+H8cZcvVg1dHa08O+Xg+fjaZBomFbDwHwCQ
g5fD10W56wF5N8pc+y3v8K0pxvJudVLSK85mK66ZvwL+Y+l04+hfkxMku8LuYjXK
wUxlZi0pahVe2EDErhZrJB9sgiXCUOdl46ShuvPXdGsfEPSchlxTx/xGRuBzEDrs
LsGImMScj04nizbU+ZemGKpMnTXaa+uc1p0oi7gnc8zU34LmPJsaM6sUNLc+AqQG
BRinCgthBeLJwvjnFSO/sM//KvFGvSVp4BIYLmT3TuK03j8HIKwdT2HItdiUJk0f
it0sebECgYEA/ZKJJYiVAf/1pGGkZch/UfR4wljNp1mJTxO6sKgjreY+mJg4/GKN
riAeQLgVgX6J5h5gZmhqoM53ohptOhEnX24htoRhU9wLwnySr9ve4/LUj2Lkfjst
xNkbY6Ccsk3kxQoSww1UixjKPVGTpbPR/P4TCbX6DM6pyuZjVUf0oEkCgYEAzZob
uJJNWPeFG9wmil/uJL3ggw81N9oGAKm8lzhIdLH5nZW9U4tUJhaPIb7BMRmjwvvc
fFUeeSdyMBcfGrbKXIZ814krL8C5e2VxEEPPFgwIlmiuCVZx+9mZs86pzyKDV375
6aEJlEpW6KF+ML+r17C8PotPhpcJyrYGOj2jcNsCgYEAkvoz+oh/bkhRtrVOGB0u
B2//6w6ULbNNToOuC6V6ANtbXxGkvk3Vt58wSe0psgSJo9PpppJRc+IZH+HXe/fj
bYIlkmiLDZOXUWTplXuJZ3EiWfZFYRGmRtpc8NNw4D0cJEXheCOq5HE7EG3PehWP
2ufeWxua03+alVwTKaRqm9kCgYEAgmJ9u/ID3SyzHDTjuBMX+fL0IwkM7ct0zQzX
TWrjACYxr07bjtSn27Oot3S6HYIuCSQh8jMkrR5n2rl+/zj2YfDj0OfrHFBzEB8H
sZHfDRM6iu/9lmxcwqN/RrkDlRlFA8LBh/iZE5KFROfNF+sldhZdeqhsGWVFT2lZ
z6txL8sCgYARIQQHodTEiB1Ja/FEeGCT3Q8vuHcB8PgO3oTFtFxNZrUYqbYRRhao
58FwnQmf8Ly5Jf83HLzUyYVctYjTlYH0y3rXYDxf3YbNY3m/rbFSU379k3QVXHOP
1rw9biXm7UuXlOeFnZqyW9cLjPBQG+EAOGmYKqAIi3d9UauNHukymg==
-----END RSA PRIVATE KEY-----
)";
const char* const kRsaPub =
    "AAAAB3NzaC1yc2EAAAADAQABAAABAQDLpv1u1ac0CUGM2djs+kvjbnXukEqXTRtY27Swe6YRb1inGBB+"
    "2tZthjDvsthARVjKuIKGUHMpHMQUh56hqg3hk03ailMOAYe7N2LscvSTiCv57bsUz4WW4ylRaqL7ma0W0JJiJJo/"
    "xjOaYHWKGYx4hXR9T6RP1EPmRGrVmDKn4IDbUoOhnp/jv8Dw+XYpAYRg45E7MKfEBSJB8j010ND1a4owLyz/X7+g6+q+e/"
    "TXo/XvqHPEML8EZ/"
    "5v6b1stJeCOcHWU0yVhLnkDZSuL6yzR7S1NPIb+NFv530i+"
    "f9rLBCqJv4VuB8f2PjiK3ycrhChVK90Fh2LWIcSau0H4A5z";
const char* const kEcdsa = R"(-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAaAAAABNlY2RzYS
1zaGEyLW5pc3RwMjU2AAAACG5pc3RwMjU2AAAAQQQhs4B0Tz2X/iArljZ1gEGFI5vfuIf8
YPmsfZu7HYaAmRCXx98GnD8TYXMxnve9xbvqSxModXvaWg9/vMfe6HzJAAAAoDKetsQynr
bEAAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCGzgHRPPZf+ICuW
NnWAQYUjm9+4h/xg+ax9m7sdhoCZEJfH3wacPxNhczGe973Fu+pLEyh1e9paD3+8x97ofM
kAAAAhAN02MxrqzOxX0pzvmIrmxVH3rDl3Eeu6DQbxZWdrEeqVAAAABHRlc3QBAgM=
-----END OPENSSH PRIVATE KEY-----
)";
const char* const kEcdsaPem = R"(-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIN02MxrqzOxX0pzvmIrmxVH3rDl3Eeu6DQbxZWdrEeqVoAoGCCqGSM49
AwEHoUQDQgAEIbOAdE89l/4gK5Y2dYBBhSOb37iH/GD5rH2bux2GgJkQl8ffBpw/
E2FzMZ73vcW76ksTKHV72loPf7zH3uh8yQ==
-----END EC PRIVATE KEY-----
)";
const char* const kEcdsaPkcs8 = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg3TYzGurM7FfSnO+Y
iubFUfesOXcR67oNBvFlZ2sR6pWhRANCAAQhs4B0Tz2X/iArljZ1gEGFI5vfuIf8
YPmsfZu7HYaAmRCXx98GnD8TYXMxnve9xbvqSxModXvaWg9/vMfe6HzJ
-----END PRIVATE KEY-----
)";
const char* const kEcdsaPub =
    "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCGzgHRPPZf+ICuWNnWAQYUjm9+4h/"
    "xg+ax9m7sdhoCZEJfH3wacPxNhczGe973Fu+pLEyh1e9paD3+8x97ofMk=";
const char* const kEcdsa384 = R"(-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAiAAAABNlY2RzYS
1zaGEyLW5pc3RwMzg0AAAACG5pc3RwMzg0AAAAYQRWcp/5iAY5KWkK/eNwED6gB4CanrAp
0JPsLXoXna5nBf3Xs4Rhsm1leiiLpCrVsmkLlouvFkmH1mMraumBoiaFvfMUlGtC8rPyZF
psK0sq0PJNrKItzvXArJ6snvdlIgEAAADQKrfbVSq321UAAAATZWNkc2Etc2hhMi1uaXN0
cDM4NAAAAAhuaXN0cDM4NAAAAGEEVnKf+YgGOSlpCv3jcBA+oAeAmp6wKdCT7C16F52uZw
X917OEYbJtZXooi6Qq1bJpC5aLrxZJh9ZjK2rpgaImhb3zFJRrQvKz8mRabCtLKtDyTayi
Lc71wKyerJ73ZSIBAAAAMQCqpNG6U4VD82rmw2TYGGR3DwlGQgMbPMpBnRWx2DNC5fsEky
cKogU13j5XXcyDi4EAAAAEdGVzdAECAw==
-----END OPENSSH PRIVATE KEY-----
)";
const char* const kEcdsa384Pub =
    "AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBFZyn/"
    "mIBjkpaQr943AQPqAHgJqesCnQk+wtehedrmcF/dezhGGybWV6KIukKtWyaQuWi68WSYfWYytq6YGiJoW98xSUa0Lys/"
    "JkWmwrSyrQ8k2soi3O9cCsnqye92UiAQ==";
const char* const kEcdsa521 = R"(-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAArAAAABNlY2RzYS
1zaGEyLW5pc3RwNTIxAAAACG5pc3RwNTIxAAAAhQQBl3Qd5gaXbRQi6Vz6pm13HuJEe3H4
OT3DhRjGVHL7NdtxModp2X1xvS5EEOCGyfgUQ3b8opEphN1FNgWIuikjj0kBmrzeggkPnE
ffAGLnRnPLLE5/g5azEgNA0E2Oh4Pmistc8kC3zsYMHiEOaWdCeo1iSWjcI7TdelsVL7oU
oEEj5w4AAAEId13nCHdd5wgAAAATZWNkc2Etc2hhMi1uaXN0cDUyMQAAAAhuaXN0cDUyMQ
AAAIUEAZd0HeYGl20UIulc+qZtdx7iRHtx+Dk9w4UYxlRy+zXbcTKHadl9cb0uRBDghsn4
FEN2/KKRKYTdRTYFiLopI49JAZq83oIJD5xH3wBi50ZzyyxOf4OWsxIDQNBNjoeD5orLXP
JAt87GDB4hDmlnQnqNYklo3CO03XpbFS+6FKBBI+cOAAAAQgEVY806TSr76dEB/HkDkTyI
RzlLpWiYLf8RqwtlypunAtn5o7UVxifTDctwuyc/AMlkYX9L8My7HnRMpmqHcQJeugAAAA
R0ZXN0AQIDBAUG
-----END OPENSSH PRIVATE KEY-----
)";
const char* const kEcdsa521Pub =
    "AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1MjEAAACFBAGXdB3mBpdtFCLpXPqmbXce4kR7cfg5PcOFGMZUcv"
    "s123Eyh2nZfXG9LkQQ4IbJ+BRDdvyikSmE3UU2BYi6KSOPSQGavN6CCQ+cR98AYudGc8ssTn+DlrMSA0DQTY6Hg+"
    "aKy1zyQLfOxgweIQ5pZ0J6jWJJaNwjtN16WxUvuhSgQSPnDg==";

std::string blob_of(const char* base64) {
  return (*Identity::parse("k", "", std::string("t ") + base64 + " c\n"))->public_blob();
}

BIGNUM* bn(std::string_view bytes) {
  return BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()),
                   static_cast<int>(bytes.size()), nullptr);
}

/// OpenSSL's public key for an SSH public key blob (ecdsa-sha2-nistp* or ssh-rsa).
EVP_PKEY* public_key(std::string_view blob) {
  WireReader r(blob);
  std::string_view type, a, b;
  if (!r.string(type) || !r.string(a) || !r.string(b)) return nullptr;
  OSSL_PARAM_BLD* build = OSSL_PARAM_BLD_new();
  BIGNUM *e = bn(a), *n = bn(b);
  if (type == "ssh-rsa") {
    OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_E, e);
    OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_N, n);
  } else {  // curve name, point
    const char* group = a == "nistp256" ? "P-256" : a == "nistp384" ? "P-384" : "P-521";
    OSSL_PARAM_BLD_push_utf8_string(build, OSSL_PKEY_PARAM_GROUP_NAME, group, 0);
    OSSL_PARAM_BLD_push_octet_string(build, OSSL_PKEY_PARAM_PUB_KEY, b.data(), b.size());
  }
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(build);
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx =
      EVP_PKEY_CTX_new_from_name(nullptr, type == "ssh-rsa" ? "RSA" : "EC", nullptr);
  EVP_PKEY_fromdata_init(ctx);
  EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params);
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  OSSL_PARAM_BLD_free(build);
  BN_free(e);
  BN_free(n);
  return key;
}

/// RFC 5656's ecdsa_signature_blob (mpint r, mpint s) back to DER, for OpenSSL to verify.
std::string der_of(std::string_view blob) {
  WireReader r(blob);
  std::string_view r_bytes, s_bytes;
  if (!r.string(r_bytes) || !r.string(s_bytes)) return {};
  for (auto n : {r_bytes, s_bytes}) {  // mpints: minimal, and positive
    EXPECT_FALSE(n.empty());
    EXPECT_FALSE(n.size() > 1 && n[0] == 0 && !(n[1] & 0x80));
    EXPECT_FALSE(!n.empty() && (n[0] & 0x80));
  }
  ECDSA_SIG* sig = ECDSA_SIG_new();
  ECDSA_SIG_set0(sig, bn(r_bytes), bn(s_bytes));
  unsigned char* der = nullptr;
  int len = i2d_ECDSA_SIG(sig, &der);
  std::string out(reinterpret_cast<char*>(der), static_cast<std::size_t>(len));
  OPENSSL_free(der);
  ECDSA_SIG_free(sig);
  return out;
}

/// True if `signature` (an SSH signature blob, as PrivateKey::sign makes) verifies over `data`
/// with the public key `blob`, hashed with `digest`.
bool verifies(std::string_view blob, const EVP_MD* digest, std::string signature,
              std::string_view data) {
  EVP_PKEY* key = public_key(blob);
  if (!key) return false;
  if (EVP_PKEY_is_a(key, "EC")) signature = der_of(signature);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = EVP_DigestVerifyInit(ctx, nullptr, digest, nullptr, key) == 1 &&
            EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()),
                             signature.size(), reinterpret_cast<const unsigned char*>(data.data()),
                             data.size()) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(key);
  return ok;
}

const std::string kData = "session id and request";
const auto* kBytes = reinterpret_cast<const unsigned char*>(kData.data());

TEST(SshKeys, OpenSshEcdsaKeysSignVerifiably) {
  for (auto [text, pub, type, digest] :
       {std::tuple{kEcdsa, kEcdsaPub, "ecdsa-sha2-nistp256", EVP_sha256()},
        std::tuple{kEcdsa384, kEcdsa384Pub, "ecdsa-sha2-nistp384", EVP_sha384()},
        std::tuple{kEcdsa521, kEcdsa521Pub, "ecdsa-sha2-nistp521", EVP_sha512()}}) {
    auto id = Identity::parse("k", text, "");
    ASSERT_TRUE(id.ok() && (*id)->can_sign()) << type;
    EXPECT_EQ((*id)->public_blob(), blob_of(pub));
    EXPECT_EQ((*id)->key_type(), type);
    std::string signature = (*id)->sign(kData);
    ASSERT_FALSE(signature.empty()) << type;
    EXPECT_TRUE(verifies(blob_of(pub), digest, signature, kData)) << type;
    EXPECT_FALSE(verifies(blob_of(pub), digest, signature, "other data")) << type;
  }
}

TEST(SshKeys, RsaSignsWithTheHashItsAlgorithmNames) {
  auto id = Identity::parse("k", kRsa, "");
  ASSERT_TRUE(id.ok() && (*id)->can_sign());
  EXPECT_EQ((*id)->public_blob(), blob_of(kRsaPub));
  const std::string blob = blob_of(kRsaPub);
  for (auto [algorithm, digest] :
       {std::pair{"rsa-sha2-512", EVP_sha512()}, std::pair{"rsa-sha2-256", EVP_sha256()},
        std::pair{"ssh-rsa", EVP_sha1()}}) {
    // A publickey request naming the algorithm, as libssh2 hands it to the sign callback.
    std::string request;
    put_string(request, "session id");
    request += '\x32';
    put_string(request, "user");
    put_string(request, "ssh-connection");
    put_string(request, "publickey");
    request += '\x01';
    put_string(request, algorithm);
    put_string(request, blob);
    ASSERT_EQ(signed_algorithm(request), algorithm);
    std::string signature = (*id)->sign(request);
    EXPECT_EQ(signature.size(), 256u) << algorithm;
    EXPECT_TRUE(verifies(blob, digest, signature, request)) << algorithm;
  }
}

TEST(SshKeys, PemKeysAreDecodedOnceWithTheirPublicKey) {
  for (auto [text, pub] : {std::pair{kRsaPem, kRsaPub}, std::pair{kEcdsaPem, kEcdsaPub},
                           std::pair{kEcdsaPkcs8, kEcdsaPub}}) {
    std::string blob;
    PrivateKey key = pem_private_key(text, blob);
    ASSERT_TRUE(key) << text;
    EXPECT_EQ(blob, blob_of(pub)) << text;  // no .pub file needed
    bool rsa = key.kind() == KeyKind::rsa;
    std::string signature = key.sign(rsa ? "rsa-sha2-256" : "", kBytes, kData.size());
    EXPECT_TRUE(verifies(blob, EVP_sha256(), signature, kData)) << text;
    auto id = Identity::parse("k", text, "");  // and through Identity, without a .pub file
    ASSERT_TRUE(id.ok() && (*id)->can_sign());
    EXPECT_EQ((*id)->public_blob(), blob_of(pub));
  }
}

TEST(SshKeys, WhatIsNotAKeyGivesNone) {
  std::string blob = "left over";
  EXPECT_FALSE(pem_private_key(
      "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n", blob));
  EXPECT_EQ(blob, "");
  EXPECT_FALSE(pem_private_key("", blob));
  EXPECT_FALSE(openssh_private_key(""));
  std::string unknown;
  put_u32(unknown, 7);
  put_u32(unknown, 7);
  put_string(unknown, "ssh-dss");
  EXPECT_FALSE(openssh_private_key(unknown));
  std::string short_rsa = unknown.substr(0, 8);
  put_string(short_rsa, "ssh-rsa");
  put_string(short_rsa, "\x01");  // n, and nothing after it
  EXPECT_FALSE(openssh_private_key(short_rsa));
}

/// The private section of an unencrypted openssh-key-v1 key text.
std::string private_section(std::string_view text) {
  auto begin = text.find('\n') + 1, end = text.find("-----END");
  std::string base64;
  for (char c : text.substr(begin, end - begin))
    if (c != '\n') base64 += c;
  std::string binary(base64.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(binary.data()),
                          reinterpret_cast<const unsigned char*>(base64.data()),
                          static_cast<int>(base64.size()));
  binary.resize(static_cast<std::size_t>(n));
  WireReader r(std::string_view(binary).substr(15));  // after "openssh-key-v1\0"
  std::string_view cipher, kdf, options, pub, section;
  std::uint32_t count;
  r.string(cipher) && r.string(kdf) && r.string(options) && r.u32(count) && r.string(pub) &&
      r.string(section);
  return std::string(section);
}

TEST(SshKeys, RsaKeyWhoseNumbersDisagreeIsRefused) {
  std::string section = private_section(kRsa);
  ASSERT_TRUE(openssh_private_key(section));
  WireReader r(section);
  std::uint32_t check1, check2;
  std::string_view type, n, e, d, iqmp, p, q;
  ASSERT_TRUE(r.u32(check1) && r.u32(check2) && r.string(type) && r.string(n) && r.string(e) &&
              r.string(d) && r.string(iqmp) && r.string(p) && r.string(q));
  auto rebuilt = [&](std::string_view first, std::string_view second, std::string_view modulus) {
    std::string out;
    put_u32(out, check1);
    put_u32(out, check2);
    for (auto part : {type, modulus, e, d, iqmp, first, second}) put_string(out, part);
    return out;
  };
  EXPECT_TRUE(openssh_private_key(rebuilt(p, q, n)));
  EXPECT_FALSE(openssh_private_key(rebuilt(q, p, n)));  // iqmp is the inverse of q mod p
  EXPECT_FALSE(openssh_private_key(rebuilt(p, q, e)));  // n is not p q
}

TEST(SshKeys, RsaRefusesAlgorithmsThatAreNotForAPlainRsaKey) {
  PrivateKey key = openssh_private_key(private_section(kRsa));
  ASSERT_TRUE(key);
  EXPECT_FALSE(key.sign("rsa-sha2-512", kBytes, kData.size()).empty());
  for (auto algorithm : {"", "ssh-ed25519", "rsa-sha2-512-cert-v01@openssh.com", "RSA-SHA2-512"})
    EXPECT_EQ(key.sign(algorithm, kBytes, kData.size()), "") << algorithm;
}

TEST(SshKeys, UnreadablePemLeavesNoOpenSslError) {
  ERR_clear_error();
  std::string blob;
  EXPECT_FALSE(
      pem_private_key("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", blob));
  EXPECT_EQ(ERR_peek_error(), 0u);
}

}  // namespace
}  // namespace pdx
