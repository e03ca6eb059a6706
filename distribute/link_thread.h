#pragma once
// What a host's agent command with a direct data link of its own shares, whichever way its data
// flows (a star's push and sync, distribute/direct_link.h; a pull, distribute/pull/pull_link.h):
// the thread that connects to where the agent says it listens and then does the link's work; the
// agent's stdin, its setup and then relay_go once linked (its end when not, so that the agent
// ends having done nothing); and the host's task, which runs the command and then ends the
// thread and waits for it on its strand.
//
//   run_linked:   exec(command, stdin LinkInput) ... the reply calls listening(ADDRESS PORT)
//   thread:       direct_connect -> linked: work(link) -> done
//                                \-> failed: why()
//   run_linked:   abandon() (a link still up is cut), then waits for the thread's done
#include "base/awaitable.h"

#include <boost/asio/awaitable.hpp>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "agent/relay_link.h"
#include "distribute/held_agent.h"
#include "distribute/relay/relay_chain.h"
#include "transport/transport.h"

namespace pdx {

class LinkThread {
 public:
  enum class State { waiting, linked, failed };

  LinkThread(std::string secret, LinkFlow flow) : secret_(std::move(secret)), flow_(flow) {}
  virtual ~LinkThread() = default;
  LinkThread(const LinkThread&) = delete;
  LinkThread& operator=(const LinkThread&) = delete;

  const std::string& secret() const { return secret_; }
  /// The agent listens at `peer` (from its reply, on the host's strand): the thread starts.
  void listening(RelayPeer peer);
  /// The state, and `wake` once at its next change while it is waiting.
  State state(std::function<void()> wake = {});
  /// The agent's command is over, or its reply was malformed: a link still up is cut, one not
  /// begun never is (the agent's stdin ends). Whether a thread is still to end.
  bool abandon();
  /// Whether a thread started and has not ended.
  bool running();
  /// Once the thread has ended (or none started): why there is no link, or what failed on it.
  std::string why();

 protected:
  /// The link's work, on its thread, once linked: link_ is set, and stays until it returns.
  virtual void linked() = 0;
  /// Notes `error` (the first one stays) and cuts the link.
  void fail(const std::string& error);
  /// Each derived class's destructor joins first: the thread uses its members.
  void join();

  std::mutex mutex_;               // for what follows
  std::condition_variable moved_;  // abandon() notifies it
  std::optional<RelayLink> link_;  // set once, while linked
  std::string why_;
  bool abandoned_ = false;

 private:
  friend boost::asio::awaitable<HostResult> run_linked(Session& session, const Job& job,
                                                       const std::string& command, LinkThread& link,
                                                       InputSource& input, JobIo& reply,
                                                       StopSignal& stop, HeldAgent* held);
  void run(const RelayPeer& peer);

  const std::string secret_;
  const LinkFlow flow_;
  std::function<void()> done_;  // posts the thread's end to the host's strand
  State state_ = State::waiting;
  std::vector<std::function<void()>> wakes_;
  bool started_ = false, ended_ = false;
  std::thread thread_;
};

/// The agent's stdin: `setup` (its frames), then relay_go once `link` is linked, or the end of
/// input when it cannot be.
class LinkInput final : public InputSource {
 public:
  LinkInput(LinkThread& link, std::string setup) : link_(link), pending_(std::move(setup)) {}
  InputPiece next() override;
  void consume(std::size_t n) override { taken_ += n; }
  void on_ready(std::function<void()> wake) override;
  void on_stall(std::function<void(const std::string&)>) override {}
  void finish() override {}

 private:
  LinkThread& link_;
  std::string pending_;
  std::size_t taken_ = 0;
  bool went_ = false;
};

/// Runs `command` on `session`, `input` its stdin and `reply` taking its output (or, where `held`
/// waits, the agent that listed in its --relay mode: HeldAgent::run); then ends `link`'s thread
/// (abandon()) and waits for it, on the host's strand.
boost::asio::awaitable<HostResult> run_linked(Session& session, const Job& job,
                                              const std::string& command, LinkThread& link,
                                              InputSource& input, JobIo& reply, StopSignal& stop,
                                              HeldAgent* held = nullptr);

}  // namespace pdx
