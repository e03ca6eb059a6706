#include "distribute/progress_meter.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A meter writing into a string, on a clock the test moves.
struct Metered {
  explicit Metered(Measure measure, std::size_t hosts = 4)
      : meter(
            measure, hosts, [this](std::string_view s) { out.append(s); }, [this] { return now; }) {
  }
  Clock::time_point now{};
  std::string out;
  ProgressMeter meter;
};

TEST(ProgressMeter, PushShowsBytesOfTotalRateEtaAndHosts) {
  Metered m(Measure::bytes_of_total);
  m.meter.add_total(40 << 20);
  m.meter.add_bytes(10 << 20);
  m.meter.host_ended(false);
  m.meter.host_ended(true);
  m.now += 2s;
  m.meter.tick();
  EXPECT_EQ(m.out,
            "\r\033[Kpdx: 10.0 MiB of 40.0 MiB (25%), 5.0 MiB/s, ETA 0:06, hosts: 1 done, 1 "
            "failed, of 4");
  m.meter.erase();
  EXPECT_TRUE(m.out.ends_with("of 4\r\033[K"));
  m.meter.erase();  // once
  EXPECT_TRUE(m.out.ends_with("of 4\r\033[K"));
}

TEST(ProgressMeter, DrawsAtMostTenTimesASecond) {
  Metered m(Measure::hosts);
  m.meter.tick();  // too soon after it was made
  EXPECT_EQ(m.out, "");
  m.now += 100ms;
  m.meter.tick();
  m.now += 50ms;
  m.meter.tick();
  EXPECT_EQ(m.out, "\r\033[Kpdx: hosts: 0 done, 0 failed, of 4");
  m.meter.host_ended(false);
  m.now += 50ms;
  m.meter.tick();
  EXPECT_EQ(m.out,
            "\r\033[Kpdx: hosts: 0 done, 0 failed, of 4\r\033[Kpdx: hosts: 1 done, 0 failed, of 4");
}

TEST(ProgressMeter, APrintedLineGoesAboveTheLineWhichIsDrawnAgain) {
  Metered m(Measure::hosts, 2);
  m.meter.print("pdx: warning: before any draw\n");  // nothing to clear
  EXPECT_EQ(m.out, "pdx: warning: before any draw\n");
  m.out.clear();
  m.now += 1s;
  m.meter.tick();
  m.meter.host_ended(false);
  m.meter.print("pdx: warning: h1: the agent cannot run there\n");
  EXPECT_EQ(m.out,
            "\r\033[Kpdx: hosts: 0 done, 0 failed, of 2"
            "\r\033[Kpdx: warning: h1: the agent cannot run there\n"
            "pdx: hosts: 1 done, 0 failed, of 2");
  m.meter.erase();
  EXPECT_TRUE(m.out.ends_with("of 2\r\033[K"));
}

TEST(ProgressMeter, PrintAboveWithoutAMeterIsStderr) {
  testing::internal::CaptureStderr();
  print_above(nullptr, "pdx: warning: w\n");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "pdx: warning: w\n");
}

TEST(ProgressMeter, PullHasNoTotal) {
  Metered m(Measure::bytes, 2);
  m.meter.add_bytes(3 << 10);
  m.now += 1s;
  m.meter.tick();
  EXPECT_EQ(m.out, "\r\033[Kpdx: 3.0 KiB, 3.0 KiB/s, hosts: 0 done, 0 failed, of 2");
}

TEST(ProgressMeter, FramesPastTheTotalShowAsTheTotal) {
  Metered m(Measure::bytes_of_total, 1);
  m.meter.add_total(1000);
  m.meter.add_bytes(1100);
  m.now += 1s;
  m.meter.tick();
  EXPECT_EQ(m.out, "\r\033[Kpdx: 1000 B of 1000 B (100%), 1000 B/s, hosts: 0 done, 0 failed, of 1");
}

TEST(ProgressMeter, LongEtaHasHours) {
  Metered m(Measure::bytes_of_total, 1);
  m.meter.add_total(10000);
  m.meter.add_bytes(1);
  m.now += 1s;
  m.meter.tick();
  EXPECT_NE(m.out.find("ETA 2:46:39"), std::string::npos) << m.out;
}

TEST(ProgressMeter, CountersTakeManyThreads) {
  Metered m(Measure::bytes, 8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&m] {
      for (int i = 0; i < 1000; ++i) m.meter.add_bytes(1);
      m.meter.host_ended(false);
    });
  for (auto& t : threads) t.join();
  m.now += 1s;
  m.meter.tick();
  EXPECT_EQ(m.out, "\r\033[Kpdx: 7.8 KiB, 7.8 KiB/s, hosts: 8 done, 0 failed, of 8");
}

TEST(ProgressLine, OffHasNoMeterAndWritesNothing) {
  testing::internal::CaptureStderr();
  {
    ProgressLine line(false, Measure::hosts, 3);
    EXPECT_EQ(line.meter(), nullptr);
    line.stop();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(ProgressLine, ARunShorterThanATickShowsNothing) {
  std::string out;
  auto now = Clock::now();  // the clock stands: no tick is due
  ProgressLine line(std::make_unique<ProgressMeter>(
      Measure::hosts, 1, [&out](std::string_view s) { out.append(s); }, [now] { return now; }));
  line.stop();
  EXPECT_EQ(out, "");
}

TEST(ProgressLine, StopErasesWhatWasDrawn) {
  std::string out;
  int calls = 0;
  auto start = Clock::now();
  // The first call (the meter made) is the start; every later one an hour on: the first tick
  // draws, the ones after it are too soon.
  ProgressLine line(std::make_unique<ProgressMeter>(
      Measure::hosts, 1, [&out](std::string_view s) { out.append(s); },
      [&] { return calls++ == 0 ? start : start + 1h; }));
  line.stop();
  line.stop();
  EXPECT_EQ(out, "\r\033[Kpdx: hosts: 0 done, 0 failed, of 1\r\033[K");
}

TEST(MeteredSink, CountsHostsAndOutputAndPassesAllOn) {
  struct Recorder : OutputSink {
    void output(std::size_t, Stream, std::string_view bytes) override { got += bytes; }
    void finished(std::size_t, const HostResult&) override { ++ended; }
    std::string got;
    int ended = 0;
  } inner;
  Metered m(Measure::bytes, 3);
  MeteredSink sink(inner, &m.meter, MeteredSink::Count::hosts_and_output);
  sink.output(0, Stream::out, "abcd");
  sink.output(0, Stream::err, "ef");
  HostResult ok, exited, refused;
  exited.exit_status = 2;
  refused.failure = Failure::connect;
  sink.finished(0, ok);
  sink.finished(1, exited);
  sink.finished(2, refused);
  EXPECT_EQ(inner.got, "abcdef");
  EXPECT_EQ(inner.ended, 3);
  m.now += 1s;
  m.meter.tick();
  EXPECT_EQ(m.out, "\r\033[Kpdx: 4 B, 4 B/s, hosts: 1 done, 2 failed, of 3");
  MeteredSink unmetered(inner, nullptr, MeteredSink::Count::hosts);
  unmetered.finished(0, ok);
  EXPECT_EQ(inner.ended, 4);
}

}  // namespace
}  // namespace pdx
