#include "transport/ssh_wiping_session.h"

#include <malloc.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace pdx {
namespace {

LIBSSH2_ALLOC_FUNC(wiping_alloc) {
  (void)abstract;
  return std::malloc(count);
}

LIBSSH2_FREE_FUNC(wiping_free) {
  (void)abstract;
  if (!ptr) return;
  OPENSSL_cleanse(ptr, malloc_usable_size(ptr));
  std::free(ptr);
}

// As realloc(), but the old block is wiped before it is given back.
LIBSSH2_REALLOC_FUNC(wiping_realloc) {
  void* moved = std::malloc(count);
  if (moved && ptr) std::memcpy(moved, ptr, std::min(count, malloc_usable_size(ptr)));
  if (moved) wiping_free(ptr, abstract);
  return moved;
}

}  // namespace

LIBSSH2_SESSION* new_wiping_session() {
  return libssh2_session_init_ex(wiping_alloc, wiping_free, wiping_realloc, nullptr);
}

}  // namespace pdx
