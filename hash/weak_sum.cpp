#include "hash/weak_sum.h"

#include <immintrin.h>

namespace pdx {

namespace {

// The sums carried on over `size` more bytes.
WeakSums add_bytes(WeakSums sums, const unsigned char* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) {
    sums.s1 += data[i];
    sums.s2 += sums.s1;
  }
  return sums;
}

// 32 bytes a step: s2 gains 32 times the s1 before the step and the bytes weighted 32..1; s1
// the bytes. The bytes left over go byte by byte.
__attribute__((target("avx2"))) WeakSums weak_sums_avx2(const unsigned char* data,
                                                        std::size_t size) {
  const __m256i weights =
      _mm256_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14,
                       13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i zero = _mm256_setzero_si256();
  __m256i s1 = zero, before = zero, weighted = zero;
  std::size_t steps = size / 32;
  for (std::size_t k = 0; k < steps; ++k) {
    __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + 32 * k));
    before = _mm256_add_epi64(before, s1);
    s1 = _mm256_add_epi64(s1, _mm256_sad_epu8(bytes, zero));
    weighted =
        _mm256_add_epi32(weighted, _mm256_madd_epi16(_mm256_maddubs_epi16(bytes, weights), ones));
  }
  alignas(32) std::uint64_t lanes1[4], lanes_before[4];
  alignas(32) std::uint32_t lanes_weighted[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes1), s1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes_before), before);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes_weighted), weighted);
  WeakSums sums;
  std::uint64_t sum_before = 0;
  for (int i = 0; i < 4; ++i) {
    sums.s1 += static_cast<std::uint32_t>(lanes1[i]);
    sum_before += lanes_before[i];
  }
  sums.s2 = static_cast<std::uint32_t>(32 * sum_before);
  for (std::uint32_t w : lanes_weighted) sums.s2 += w;
  return add_bytes(sums, data + 32 * steps, size - 32 * steps);
}

}  // namespace

WeakSums weak_sums_bytewise(const unsigned char* data, std::size_t size) {
  return add_bytes(WeakSums{}, data, size);
}

WeakSums weak_sums(const unsigned char* data, std::size_t size) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2 ? weak_sums_avx2(data, size) : weak_sums_bytewise(data, size);
}

}  // namespace pdx
