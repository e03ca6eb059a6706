#include "archive/names.h"

#include <langinfo.h>

#include <clocale>
#include <cstring>

namespace pdx {

void use_utf8_names() {
  std::setlocale(LC_CTYPE, "");
  if (std::strcmp(nl_langinfo(CODESET), "UTF-8") != 0) std::setlocale(LC_CTYPE, "C.UTF-8");
}

}  // namespace pdx
