#include "transport/seconds.h"

#include <cstdio>

namespace pdx {

std::string format_seconds(std::chrono::milliseconds d) {
  char text[32];
  if (d.count() % 1000 == 0)
    std::snprintf(text, sizeof text, "%llds", static_cast<long long>(d.count() / 1000));
  else
    std::snprintf(text, sizeof text, "%.3gs", static_cast<double>(d.count()) / 1000.0);
  return text;
}

}  // namespace pdx
