#pragma once
// SHA-256 for manifests: the hash sha256sum(1) prints, so parts can be checked with it too.
// OpenSSL's EVP implementation (SHA-NI / AVX2 where the CPU has them).
#include <cstddef>
#include <memory>
#include <string>

struct evp_md_ctx_st;

namespace pdx {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  /// The digest as 64 lower-case hex digits. Ends the computation.
  std::string hex_digest();

 private:
  struct Free {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> ctx_;
};

}  // namespace pdx
