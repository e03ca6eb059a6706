#pragma once
// A wave of a push or a sync (distribute/push/push.h, distribute/sync/sync.h): at most -f
// consecutive hosts, run at once, each a task on its one session. At each of the wave's meetings (a
// WaveBarrier, distribute/wave_barrier.h) every host still running arrives, and the last to come
// seats them: `seating` groups the hosts that arrived, each group sharing one stream (hosts with
// equal plans); then each goes on with its seat. Hosts beyond -f are the next wave's, which
// makes its streams again, so no stream is kept for hosts that have not started.
//
//   host task:  ... -> meet(m, k) ... -> seat(m, k) -> its group's stream -> meet(m + 1, k) ...
//   meeting m:  the last to arrive (or end) runs seating[m] on its thread, then the others go on
//   ended(k):   from the run's sink when host k's task is over (or never started): no meeting
//               waits for it, and each group it sits in is told (Group::leave: its reader stops
//               holding the group's stream); the last end hands back every meeting's groups
//
// Group: movable, with `std::vector<std::size_t> members` (positions in the wave; reader j is
// members[j]) and `void leave(std::size_t reader)`, called under the wave's lock.
// Thread-safety: every call from the hosts' strands; seating[m] must not throw, and runs once.
#include "base/awaitable.h"

#include <algorithm>
#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "core/executor.h"
#include "distribute/wave_barrier.h"
#include "transport/transport.h"

namespace pdx {

template <class Group>
class Wave {
 public:
  /// The groups of the hosts at the positions `arrived` (in order), each group's members by
  /// position.
  using Seating = std::function<std::vector<Group>(const std::vector<std::size_t>& arrived)>;

  Wave(std::size_t size, std::vector<Seating> seatings)
      : seatings_(std::move(seatings)),
        arrived_(seatings_.size(), std::vector<bool>(size, false)),
        ended_(size, false),
        groups_(seatings_.size()),
        seats_(seatings_.size(), std::vector<std::optional<Place>>(size)) {
    for (std::size_t m = 0; m < seatings_.size(); ++m)
      barriers_.push_back(std::make_unique<WaveBarrier>(size, [this, m] { seat_all(m); }));
  }
  Wave(const Wave&) = delete;
  Wave& operator=(const Wave&) = delete;

  std::size_t size() const { return ended_.size(); }

  /// Host k comes to meeting m: true once the wave is seated there, false when `stop` fired
  /// first (Ctrl-C). Once per host and meeting.
  boost::asio::awaitable<bool> meet(std::size_t m, std::size_t k, StopSignal& stop) {
    {
      std::lock_guard lock(mutex_);
      arrived_[m][k] = true;
    }
    return barriers_[m]->arrive(k, stop);
  }

  /// After meet(m, k): host k's group there and its reader; no group when it has nothing to
  /// take. The group stays where it is until every host of the wave has ended.
  struct Seat {
    Group* group = nullptr;
    std::size_t reader = 0;
  };
  Seat seat(std::size_t m, std::size_t k) {
    std::lock_guard lock(mutex_);
    if (!seats_[m][k]) return {};
    return {&groups_[m][seats_[m][k]->group], seats_[m][k]->reader};
  }

  /// Host k's task is over. Every meeting's groups once the last host has ended (to be freed,
  /// their streams' errors read, outside the lock), else none.
  std::vector<Group> ended(std::size_t k) {
    for (auto& barrier : barriers_) barrier->leave(k);  // may seat, which locks
    std::lock_guard lock(mutex_);
    ended_[k] = true;
    for (std::size_t m = 0; m < seats_.size(); ++m)
      if (seats_[m][k]) groups_[m][seats_[m][k]->group].leave(seats_[m][k]->reader);
    std::vector<Group> done;
    for (bool e : ended_)
      if (!e) return done;
    for (auto& groups : groups_)
      for (auto& group : groups) done.push_back(std::move(group));
    for (auto& groups : groups_) groups.clear();
    return done;
  }

 private:
  struct Place {
    std::size_t group, reader;
  };

  // Meeting m's completion: the hosts that arrived and have not ended, seated; a host that
  // ended while the seating ran leaves its group at once.
  void seat_all(std::size_t m) {
    std::vector<std::size_t> arrived;
    {
      std::lock_guard lock(mutex_);
      for (std::size_t k = 0; k < ended_.size(); ++k)
        if (arrived_[m][k] && !ended_[k]) arrived.push_back(k);
    }
    std::vector<Group> groups = seatings_[m](arrived);
    std::lock_guard lock(mutex_);
    groups_[m] = std::move(groups);
    for (std::size_t g = 0; g < groups_[m].size(); ++g)
      for (std::size_t j = 0; j < groups_[m][g].members.size(); ++j) {
        std::size_t k = groups_[m][g].members[j];
        seats_[m][k] = Place{g, j};
        if (ended_[k]) groups_[m][g].leave(j);
      }
  }

  std::vector<Seating> seatings_;
  std::vector<std::unique_ptr<WaveBarrier>> barriers_;  // by meeting
  std::mutex mutex_;                                    // for what follows
  std::vector<std::vector<bool>> arrived_;              // by meeting, then position
  std::vector<bool> ended_;                             // by position
  std::vector<std::vector<Group>> groups_;              // by meeting
  std::vector<std::vector<std::optional<Place>>> seats_;
};

/// The waves of a run of `hosts` hosts, at most `size` each: `W(args..., first, count)`, in a
/// deque, where no wave is ever moved (their meetings' seatings point at them).
template <class W, class... Args>
std::deque<W> make_waves(std::size_t hosts, std::size_t size, Args&... args) {
  std::deque<W> waves;
  for (std::size_t first = 0; first < hosts; first += size)
    waves.emplace_back(args..., first, std::min(size, hosts - first));
  return waves;
}

/// The run's sink for waves `W` of `size` hosts: each command's reply has a sink of its own, so
/// only the ends count; the last end of a wave hands its groups to `W::finish(groups)`, which
/// frees their streams (what reads them first) and notes what they said.
template <class W>
class WaveEnds final : public OutputSink {
 public:
  WaveEnds(std::deque<W>& waves, std::size_t size) : waves_(waves), size_(size) {}
  void output(std::size_t, Stream, std::string_view) override {}
  void finished(std::size_t index, const HostResult&) override {
    W& wave = waves_[index / size_];
    auto done = wave.wave.ended(index % size_);
    if (!done.empty()) wave.finish(std::move(done));
  }

 private:
  std::deque<W>& waves_;
  std::size_t size_;
};

/// `task(wave, position, session, job, stop)` for each host on its one session
/// (execute_tasks): a worker takes the next host when one is done, so a wave starts as the
/// previous one ends, never more than `size` hosts at once.
template <class W, class Task>
std::vector<HostResult> execute_waves(Transport& transport, const std::vector<Job>& jobs,
                                      std::deque<W>& waves, std::size_t size, OutputSink& sink,
                                      const Task& task) {
  return execute_tasks(transport, jobs, sink, {size, 0},
                       [&](Session& session, const Job& job, JobIo&, StopSignal& stop) {
                         return task(waves[job.index / size], job.index % size, session, job, stop);
                       });
}

}  // namespace pdx
