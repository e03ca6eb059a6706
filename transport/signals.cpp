#include "transport/signals.h"

#include <csignal>
#include <string_view>

namespace pdx {

namespace {

struct SignalName {
  int number;
  const char* name;
};

constexpr SignalName kSignals[] = {
    {SIGHUP, "HUP"},   {SIGINT, "INT"},   {SIGQUIT, "QUIT"}, {SIGILL, "ILL"},   {SIGTRAP, "TRAP"},
    {SIGABRT, "ABRT"}, {SIGBUS, "BUS"},   {SIGFPE, "FPE"},   {SIGKILL, "KILL"}, {SIGUSR1, "USR1"},
    {SIGSEGV, "SEGV"}, {SIGUSR2, "USR2"}, {SIGPIPE, "PIPE"}, {SIGALRM, "ALRM"}, {SIGTERM, "TERM"},
    {SIGXCPU, "XCPU"}, {SIGXFSZ, "XFSZ"}, {SIGSYS, "SYS"},
};

}  // namespace

int signal_number(const std::string& name) {
  std::string_view n(name);
  if (n.starts_with("SIG")) n.remove_prefix(3);
  for (const auto& s : kSignals)
    if (n == s.name) return s.number;
  return 0;
}

std::string signal_name(int number) {
  for (const auto& s : kSignals)
    if (s.number == number) return s.name;
  return std::to_string(number);
}

}  // namespace pdx
