#pragma once
// A ByteSink that keeps what is written in memory, for the archive unit tests.
#include <string>
#include <vector>

#include "archive/byte_sink.h"

namespace pdx::test {

class MemorySink : public ByteSink {
 public:
  Result<void> write(const void* data, std::size_t size) override {
    bytes.append(static_cast<const char*>(data), size);
    return {};
  }
  Result<void> finish() override {
    finished = true;
    return {};
  }
  std::vector<WrittenFile> files() const override { return {{"memory", bytes.size(), {}}}; }
  std::uint64_t written() const override { return bytes.size(); }

  std::string bytes;
  bool finished = false;
};

}  // namespace pdx::test
