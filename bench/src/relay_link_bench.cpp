// 1 GiB over one relay link (agent/relay_link) on loopback in one process, 1 MiB chunks:
// the wall time, and the CPU of the sending and the receiving thread. Built and run by
// bench/bench-relay-link.sh.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "agent/relay_link.h"

using namespace pdx;
using namespace std::chrono_literals;

static double thread_cpu() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

int main() {
  std::string secret(kRelaySecretSize, 's');
  auto listener = relay_listen("127.0.0.1", 0, 0);
  if (!listener) return 1;
  double received_cpu = 0;
  std::size_t got = 0;
  std::thread receiver([&] {
    auto link = RelayLink::accept(listener->fd.get(), secret, RelayLink::Clock::now() + 5s, 0);
    if (!link) return;
    double start = thread_cpu();
    for (;;) {
      auto chunk = link->receive(10s);
      if (!chunk || !*chunk) {
        if (chunk) link->passed_on();
        break;
      }
      got += (*chunk)->size();
    }
    received_cpu = thread_cpu() - start;
  });
  auto link = RelayLink::connect("127.0.0.1", listener->port, secret, RelayLink::Clock::now() + 5s);
  if (!link) return 1;
  std::string chunk(kRelayMaxChunk, 'x');
  auto start = std::chrono::steady_clock::now();
  double cpu = thread_cpu();
  for (int i = 0; i < 1024; ++i)
    if (!link->send(chunk)) return 1;
  if (!link->finish()) return 1;
  double sent_cpu = thread_cpu() - cpu;
  receiver.join();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%.3f %.3f %.3f %zu\n", wall, sent_cpu, received_cpu, got);
  return got == std::size_t(1) << 30 ? 0 : 1;
}
