#pragma once
// A Transport for unit tests: each host's open and execs scripted (output, exit status,
// failures, delays on the io_context's timers), with no processes, sockets or sleeps. Records
// what it was asked to do: the commands each host ran, the sessions open at once.
#include "base/awaitable.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "agent/agent_protocol.h"
#include "transport/input_source.h"
#include "transport/transport.h"

namespace pdx::test {

struct FakeExec {
  std::function<void()> at_start;      // called as the exec starts (to raise a signal, say)
  std::chrono::milliseconds delay{0};  // before it answers; Ctrl-C ends it as interrupted
  std::string out, err;
  int exit_status = 0;
  Failure failure = Failure::none;  // set: the exec fails so, with `error`, after the delay
  std::string error;
  bool echo_stdin = false;  // stdin read to its end first, and written to stdout after `out`
  // Written to stdout first, then stdin read to its end, then `out` (an agent that lists and
  // stays for its stream: distribute/held_agent.h). Where stdin waits after a step's byte and its
  // frames to `done` (the agent kept for another step), `out` then, and stdin read on to its end.
  std::string listing;
};

struct FakeHost {
  std::chrono::milliseconds open_delay{0};
  Failure open_failure = Failure::none;  // set: open() fails so, with `open_error`
  std::string open_error;
  std::vector<FakeExec> execs;  // the session's execs in order; the last one repeats
};

class FakeTransport final : public Transport {
 public:
  explicit FakeTransport(std::function<FakeHost(const Job&)> script) : script_(std::move(script)) {}

  boost::asio::awaitable<Opened> open(const Job& job, StopSignal& stop) override {
    FakeHost host = script_(job);
    {
      std::lock_guard lock(mutex_);
      ++opens_[job.index];
    }
    if (!co_await pause(host.open_delay, stop)) co_return Opened{nullptr, interrupted()};
    if (host.open_failure != Failure::none) {
      HostResult failed;
      failed.failure = host.open_failure;
      failed.error = host.open_error;
      co_return Opened{nullptr, failed};
    }
    co_return Opened{std::make_unique<FakeSession>(*this, std::move(host), job.index), {}};
  }

  std::size_t most_at_once() const {
    std::lock_guard lock(mutex_);
    return most_open_;
  }
  std::size_t opens(std::size_t index) const {
    std::lock_guard lock(mutex_);
    auto found = opens_.find(index);
    return found == opens_.end() ? 0 : found->second;
  }
  std::vector<std::string> commands(std::size_t index) const {
    std::lock_guard lock(mutex_);
    auto found = commands_.find(index);
    return found == commands_.end() ? std::vector<std::string>{} : found->second;
  }

 private:
  class FakeSession final : public Session {
   public:
    FakeSession(FakeTransport& transport, FakeHost host, std::size_t index)
        : transport_(transport), host_(std::move(host)), index_(index) {
      std::lock_guard lock(transport_.mutex_);
      transport_.most_open_ = std::max(transport_.most_open_, ++transport_.open_);
    }
    ~FakeSession() override {
      std::lock_guard lock(transport_.mutex_);
      --transport_.open_;
    }

    boost::asio::awaitable<HostResult> exec(const ExecRequest& request, JobIo& io,
                                            StopSignal& stop) override {
      {
        std::lock_guard lock(transport_.mutex_);
        transport_.commands_[index_].push_back(request.command);
      }
      FakeExec script =
          host_.execs.empty() ? FakeExec{} : host_.execs[std::min(next_++, host_.execs.size() - 1)];
      if (script.at_start) script.at_start();
      std::string input;
      bool answered = false;  // `out` written while stdin waited for a next step
      if (!script.listing.empty()) {
        io.output(index_, Stream::out, script.listing);
        bool ended = true;
        if (request.input) input = co_await read_all(*request.input, &ended);
        if (!script.echo_stdin) input.clear();
        if (!ended) {
          io.output(index_, Stream::out, script.out + input);
          answered = true;
          input.clear();
          co_await read_all(*request.input);
        }
      }
      if (request.input && script.echo_stdin && !answered)
        input += co_await read_all(*request.input);
      if (request.input) request.input->finish();
      if (!co_await pause(script.delay, stop)) co_return interrupted();
      HostResult result;
      result.failure = script.failure;
      result.error = script.error;
      result.exit_status = script.exit_status;
      if (!answered && (!script.out.empty() || !input.empty()))
        io.output(index_, Stream::out, script.out + input);
      if (!script.err.empty()) io.output(index_, Stream::err, script.err);
      co_return result;
    }

   private:
    FakeTransport& transport_;
    FakeHost host_;
    std::size_t index_;
    std::size_t next_ = 0;
  };

  static HostResult interrupted() {
    HostResult r;
    r.failure = Failure::interrupted;
    r.error = "interrupted";
    return r;
  }

  // Waits `delay` on a timer of the strand; false if `stop` fired first.
  static boost::asio::awaitable<bool> pause(std::chrono::milliseconds delay, StopSignal& stop) {
    auto ex = co_await boost::asio::this_coro::executor;
    auto timer = std::make_shared<boost::asio::steady_timer>(ex, delay);
    stop.on_stop([weak = std::weak_ptr(timer), ex] {
      boost::asio::post(ex, [weak] {
        if (auto t = weak.lock()) t->cancel();
      });
    });
    boost::system::error_code ec;
    if (delay.count() > 0 && !stop.stopped())
      co_await timer->async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    co_return !stop.stopped();
  }

  // Whether `bytes` are a step's byte and its frames up to `done` (or not frames at all).
  static bool step_sent(std::string_view bytes) {
    if (bytes.empty()) return false;
    FrameDecoder decoder;
    decoder.feed(bytes.substr(1));
    for (;;) {
      auto frame = decoder.next();
      if (!frame) return true;
      if (!*frame) return false;
      if ((*frame)->type == FrameType::done) return true;
    }
  }

  // The source's bytes to its end, waiting on a timer its on_ready() cancels. With `ended`: or
  // until it waits after a step (step_sent; false there).
  static boost::asio::awaitable<std::string> read_all(InputSource& input, bool* ended = nullptr) {
    auto ex = co_await boost::asio::this_coro::executor;
    std::string all;
    for (;;) {
      auto piece = input.next();
      if (piece.state == InputPiece::State::end || piece.state == InputPiece::State::failed)
        co_return all;
      if (piece.state == InputPiece::State::data) {
        all.append(piece.bytes);
        input.consume(piece.bytes.size());
        continue;
      }
      if (ended && step_sent(all)) {
        *ended = false;
        co_return all;
      }
      auto ready = std::make_shared<boost::asio::steady_timer>(
          ex, boost::asio::steady_timer::time_point::max());
      input.on_ready([weak = std::weak_ptr(ready), ex] {
        boost::asio::post(ex, [weak] {
          if (auto t = weak.lock()) t->cancel();
        });
      });
      boost::system::error_code ec;
      co_await ready->async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    }
  }

  std::function<FakeHost(const Job&)> script_;
  mutable std::mutex mutex_;
  std::size_t open_ = 0, most_open_ = 0;
  std::map<std::size_t, std::size_t> opens_;
  std::map<std::size_t, std::vector<std::string>> commands_;
};

}  // namespace pdx::test
