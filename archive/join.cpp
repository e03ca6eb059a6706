#include "archive/join.h"

#include <vector>

#include "archive/part_reader.h"

namespace pdx {

Result<std::uint64_t> join_parts(const std::vector<std::string>& parts, ByteSink& sink) {
  PartReader reader(parts);
  TRY(reader.check());
  std::vector<char> buffer(1 << 20);
  std::uint64_t total = 0;
  for (;;) {
    auto n = TRY(reader.read(buffer.data(), buffer.size()));
    if (n == 0) break;
    TRY(sink.write(buffer.data(), n));
    total += n;
  }
  TRY(sink.finish());
  return total;
}

}  // namespace pdx
