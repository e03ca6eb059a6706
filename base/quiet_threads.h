#pragma once
// Threads that must not take Ctrl-C (the stdin broadcast's reader, a push's frame writers): the
// executor blocks SIGINT, SIGTERM and SIGHUP only in the threads it starts and takes them on a
// thread of its own (core/executor.cpp), so a thread started before execute() with them
// unblocked would be handed the signal instead, and the run would not stop (or, with the default
// action, would end without its report).
#include <signal.h>

#include <initializer_list>

namespace pdx {

/// While it lives, the calling thread blocks SIGINT, SIGTERM and SIGHUP, and so do the threads
/// it starts (they inherit the mask); the mask is restored when it goes.
class QuietThreads {
 public:
  QuietThreads() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, &previous_);
  }
  ~QuietThreads() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  QuietThreads(const QuietThreads&) = delete;
  QuietThreads& operator=(const QuietThreads&) = delete;

 private:
  sigset_t previous_;
};

}  // namespace pdx
