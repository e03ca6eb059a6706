#include "base/umask.h"

#include <sys/stat.h>

namespace pdx {

mode_t process_umask() {
  static const mode_t mask = [] {
    mode_t m = ::umask(0);
    ::umask(m);
    return m;
  }();
  return mask;
}

}  // namespace pdx
