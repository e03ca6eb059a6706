#include "distribute/held_agent.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <functional>
#include <optional>
#include <utility>

#include "agent/agent_protocol.h"
#include "distribute/gate_input.h"

namespace asio = boost::asio;

namespace pdx {

// What the command's coroutine and the caller share, on the host's strand.
struct HeldAgent::State : JobIo {
  State(std::unique_ptr<InputSource> lead_, int replies_)
      : lead(std::move(lead_)),
        gate(lead.get()),
        replies(replies_),
        listing(static_cast<std::size_t>(replies_) * ReplySink::kMaxReply) {}

  std::unique_ptr<InputSource> lead;  // before gate, which reads it
  GateInput gate;
  int replies;  // summary frames still to come in the first reply
  ExecRequest request;
  ReplySink listing, receipt;  // stdout and stderr up to the first reply's end (each reply
                               // kMaxReply at most); after it
  JobIo* after = &receipt;     // where what comes after the listing goes
  FrameDecoder decoder;
  bool listed = false, ended = false;
  HostResult result;
  std::exception_ptr thrown;
  std::optional<asio::steady_timer> timer;  // cancelled to wake the caller

  void wake() {
    if (timer) timer->cancel();
  }
  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    if (listed) return after->output(index, stream, bytes);
    listing.output(index, stream, bytes);
    if (stream == Stream::err) return;
    decoder.feed(bytes);
    for (;;) {
      auto frame = decoder.next();
      if (!frame) return gate.close();  // not the agent's frames: wait for its end
      if (!*frame) return;
      if ((*frame)->type == FrameType::summary && --replies == 0) {
        // The agent writes nothing more before its stream: anything else is not its.
        if (decoder.partial()) return gate.close();
        listed = true;
        return wake();
      }
    }
  }
};

namespace {

asio::awaitable<void> run_held(std::shared_ptr<HeldAgent::State> state, Session& session,
                               StopSignal& stop) {
  try {
    state->result = co_await session.exec(state->request, *state, stop);
  } catch (...) {
    state->thrown = std::current_exception();
  }
  state->ended = true;
  state->wake();
}

}  // namespace

HeldAgent::HeldAgent(Session& session, const Job& job, std::string command, StopSignal& stop,
                     std::unique_ptr<InputSource> lead, int replies)
    : session_(session), stop_(stop), state_(std::make_shared<State>(std::move(lead), replies)) {
  state_->request = ExecRequest{std::move(command), job.env, job.command_timeout, &state_->gate};
}

asio::awaitable<void> HeldAgent::until(bool State::*done) {
  while (!((*state_).*done) && !state_->ended) {
    // The strand runs nothing between the test and the wait's start: a wake-up cannot be lost.
    boost::system::error_code ignored;
    state_->timer->expires_at(asio::steady_timer::time_point::max());
    co_await state_->timer->async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  if (state_->thrown) std::rethrow_exception(std::exchange(state_->thrown, nullptr));
}

asio::awaitable<HeldAgent::Reply> HeldAgent::listed() {
  auto ex = co_await asio::this_coro::executor;
  state_->timer.emplace(ex, asio::steady_timer::time_point::max());
  asio::co_spawn(ex, run_held(state_, session_, stop_), asio::detached);
  co_await until(&State::listed);
  Reply reply = std::move(state_->listing.reply());
  reply.result = state_->ended ? state_->result : HostResult{};  // still running: exit 0
  co_return reply;
}

bool HeldAgent::waiting() const {
  return state_->listed && !state_->ended;
}

asio::awaitable<HeldAgent::Reply> HeldAgent::receive(InputSource& input) {
  HostResult result = co_await go(input, state_->receipt, steps_.star);
  Reply reply = std::move(state_->receipt.reply());
  reply.result = std::move(result);
  co_return reply;
}

asio::awaitable<HostResult> HeldAgent::run(InputSource& input, JobIo& io) {
  return go(input, io, steps_.relay);
}

asio::awaitable<HostResult> HeldAgent::go(InputSource& input, JobIo& io, char mode) {
  state_->after = &io;
  state_->gate.open(input, std::string_view(&mode, 1));
  co_await until(&State::ended);
  co_return state_->result;
}

asio::awaitable<void> HeldAgent::release() {
  if (!state_->timer) co_return;  // never started
  state_->gate.close();
  co_await until(&State::ended);
}

asio::awaitable<HostResult> run_relay_mode(Session& session, const ExecRequest& request, JobIo& io,
                                           HeldAgent* held, StopSignal& stop) {
  if (held && held->waiting()) co_return co_await held->run(*request.input, io);
  co_return co_await session.exec(request, io, stop);
}

}  // namespace pdx
