// Asynchronous signals (Ctrl-C's SIGINT, SIGTERM, ...) blocked on this thread, and so on the
// reader threads it starts, for a scope. Why: a signal landing on a reader thread interrupts its
// read() (EINTR) and the read fails; Python handles signals on its main thread only, which
// keeps them unblocked while a package worker thread reads, so Ctrl-C still reaches Python.
#pragma once

#include <pthread.h>
#include <signal.h>

namespace pyiris {

class QuietSignals {
 public:
  QuietSignals() {
    sigset_t set;
    sigfillset(&set);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) sigdelset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~QuietSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  QuietSignals(const QuietSignals&) = delete;
  QuietSignals& operator=(const QuietSignals&) = delete;

 private:
  sigset_t old_;
};

}  // namespace pyiris
