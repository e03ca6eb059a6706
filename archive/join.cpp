#include "archive/join.h"

#include <vector>

#include "archive/part_reader.h"

namespace pdx {

Result<std::uint64_t> join_parts(const std::vector<std::string>& parts, ByteSink& sink) {
  PartReader reader(parts);
  if (auto ok = reader.check(); !ok) return Error{ok.error()};
  std::vector<char> buffer(1 << 20);
  std::uint64_t total = 0;
  for (;;) {
    auto n = reader.read(buffer.data(), buffer.size());
    if (!n) return Error{n.error()};
    if (*n == 0) break;
    if (auto ok = sink.write(buffer.data(), *n); !ok) return Error{ok.error()};
    total += *n;
  }
  if (auto ok = sink.finish(); !ok) return Error{ok.error()};
  return total;
}

}  // namespace pdx
