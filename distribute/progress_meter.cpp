#include "distribute/progress_meter.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "archive/size.h"
#include "base/quiet_threads.h"

namespace pdx {

namespace {

constexpr std::string_view kClearLine = "\r\033[K";

// "0:15", "1:02:03"
std::string eta_text(std::uint64_t seconds) {
  char buf[48];
  unsigned long long h = seconds / 3600, m = seconds / 60 % 60, s = seconds % 60;
  if (h > 0)
    std::snprintf(buf, sizeof buf, "%llu:%02llu:%02llu", h, m, s);
  else
    std::snprintf(buf, sizeof buf, "%llu:%02llu", m, s);
  return buf;
}

}  // namespace

ProgressMeter::ProgressMeter(Measure measure, std::size_t hosts, Write write, Clock clock)
    : measure_(measure),
      hosts_(hosts),
      write_(std::move(write)),
      clock_(std::move(clock)),
      start_(clock_()),
      last_(start_) {}

void ProgressMeter::tick() {
  std::lock_guard lock(mutex_);
  auto now = clock_();
  if (now - last_ < kRedrawEvery) return;
  last_ = now;
  drawn_ = true;
  write_(std::string(kClearLine) + line(now));
}

void ProgressMeter::erase() {
  std::lock_guard lock(mutex_);
  if (!drawn_) return;
  drawn_ = false;
  write_(kClearLine);
}

void ProgressMeter::print(std::string_view text) {
  std::lock_guard lock(mutex_);
  if (!drawn_) {
    write_(text);
    return;
  }
  auto now = clock_();
  last_ = now;
  write_(std::string(kClearLine) + std::string(text) + line(now));
}

void print_above(ProgressMeter* meter, std::string_view text) {
  if (text.empty()) return;
  if (meter)
    meter->print(text);
  else
    (void)write_all(STDERR_FILENO, text);
}

std::string ProgressMeter::line(std::chrono::steady_clock::time_point now) const {
  std::string text = "pdx: ";
  if (measure_ != Measure::hosts) {
    std::uint64_t bytes = bytes_.load(std::memory_order_relaxed);
    std::uint64_t total = total_.load(std::memory_order_relaxed);
    bool of_total = measure_ == Measure::bytes_of_total && total > 0;  // not: parts from a pipe
    if (of_total) bytes = std::min(bytes, total);  // what is sent holds a little more: frames
    double seconds = std::chrono::duration<double>(now - start_).count();
    auto rate = seconds > 0 ? static_cast<std::uint64_t>(static_cast<double>(bytes) / seconds) : 0;
    text += human_size(bytes);
    if (of_total)
      text += " of " + human_size(total) + " (" + std::to_string(bytes * 100 / total) + "%)";
    text += ", " + human_size(rate) + "/s";
    if (of_total && total > bytes && rate > 0) text += ", ETA " + eta_text((total - bytes) / rate);
    text += ", ";
  }
  return text + "hosts: " + std::to_string(done_.load(std::memory_order_relaxed)) + " done, " +
         std::to_string(failed_.load(std::memory_order_relaxed)) + " failed, of " +
         std::to_string(hosts_);
}

bool progress_wanted(bool progress, bool no_progress) {
  if (progress || no_progress) return progress;
  return ::isatty(STDERR_FILENO) == 1;
}

ProgressLine::ProgressLine(std::unique_ptr<ProgressMeter> meter) : meter_(std::move(meter)) {
  if (!meter_) return;
  QuietThreads quiet;  // Ctrl-C is the executor's signal thread's to take
  thread_ = std::thread([this] { run(); });
}

ProgressLine::ProgressLine(bool on, Measure measure, std::size_t hosts)
    : ProgressLine(
          on ? std::make_unique<ProgressMeter>(
                   measure, hosts, [](std::string_view s) { (void)write_all(STDERR_FILENO, s); })
             : nullptr) {}

void ProgressLine::run() {
  std::unique_lock lock(mutex_);
  do {
    lock.unlock();
    meter_->tick();
    lock.lock();
  } while (!wake_.wait_for(lock, ProgressMeter::kRedrawEvery, [this] { return stopping_; }));
}

void ProgressLine::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  meter_->erase();
}

void MeteredSink::output(std::size_t index, Stream stream, std::string_view bytes) {
  if (meter_ && count_ == Count::hosts_and_output && stream == Stream::out)
    meter_->add_bytes(bytes.size());
  inner_.output(index, stream, bytes);
}

void MeteredSink::finished(std::size_t index, const HostResult& result) {
  inner_.finished(index, result);
  if (meter_)
    meter_->host_ended(result.failure != Failure::none || !result.signal.empty() ||
                       result.exit_status != 0);
}

}  // namespace pdx
