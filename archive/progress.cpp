#include "archive/progress.h"

#include <unistd.h>

#include <cstdio>

#include "archive/size.h"

namespace pdx {

namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(200);

std::string clock_time(std::uint64_t seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu:%02llu", static_cast<unsigned long long>(seconds / 60),
                static_cast<unsigned long long>(seconds % 60));
  return buf;
}

}  // namespace

Progress::Progress()
    : enabled_(::isatty(STDERR_FILENO) == 1), start_(Clock::now()), last_(start_) {}

Progress::~Progress() {
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void Progress::update(std::uint64_t done, std::uint64_t total, std::optional<std::uint64_t> out) {
  if (!enabled_) return;
  auto now = Clock::now();
  if (now - last_ < kRedrawEvery) return;
  last_ = now;
  double seconds = std::chrono::duration<double>(now - start_).count();
  auto rate = static_cast<std::uint64_t>(static_cast<double>(done) / seconds);
  std::string line = "pdx: " + human_size(done);
  if (total > 0) line += " of " + human_size(total);
  line += " in, ";
  if (out) line += human_size(*out) + " out, ";
  line += human_size(rate) + "/s";
  if (total > done && rate > 0) line += ", ETA " + clock_time((total - done) / rate);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  drawn_ = true;
}

}  // namespace pdx
