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
        listing(static_cast<std::size_t>(replies_) * ReplySink::kMaxReply) {
    gate.on_shut([this] { step_over(); });
  }

  std::unique_ptr<InputSource> lead;  // before gate, which reads it
  GateInput gate;
  int replies;  // summary frames still to come in the first reply
  ExecRequest request;
  ReplySink listing, receipt;  // stdout and stderr up to the first reply's end (each reply
                               // kMaxReply at most); after it, a step's over ssh
  JobIo* after = &receipt;     // where what comes after the listing goes
  FrameDecoder decoder;        // the first reply's, then each step's over ssh
  bool listed = false, ended = false;
  // A step over ssh (receive()): its receipt came whole (its summary), and its input was all sent
  // (the gate shut again): the agent waits for the next.
  bool step = false, receipted = false, stepped = false;
  int receipts = 0;  // summary frames still to come in a step's receipt
  HostResult result;
  std::exception_ptr thrown;
  std::optional<asio::steady_timer> timer;  // cancelled to wake the caller

  void wake() {
    if (timer) timer->cancel();
  }
  void step_over() {
    if (!receipted || !gate.shut()) return;
    stepped = true;
    wake();
  }
  // Frames of the first reply, or a step's receipt: true once its last summary has come whole,
  // with nothing after it. Bytes that are not the agent's frames (a shell's writing before the
  // command), or anything after that summary, end its stdin: the caller waits for its end.
  bool whole(std::string_view bytes, int& summaries) {
    decoder.feed(bytes);
    for (;;) {
      auto frame = decoder.next();
      if (!frame) return gate.close(), false;
      if (!*frame) return false;
      if ((*frame)->type == FrameType::summary && --summaries == 0) {
        if (decoder.partial()) return gate.close(), false;
        return true;
      }
    }
  }
  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    if (listed) {
      after->output(index, stream, bytes);
      if (!step || stream == Stream::err || receipted) return;
      if (whole(bytes, receipts)) {
        receipted = true;
        step_over();
      }
      return;
    }
    listing.output(index, stream, bytes);
    if (stream == Stream::err) return;
    if (!whole(bytes, replies)) return;
    listed = true;
    wake();
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
  State& s = *state_;
  s.after = &s.receipt;
  s.decoder = FrameDecoder();
  s.step = true;
  s.receipted = s.stepped = false;
  s.receipts = 1;
  s.gate.open(input, std::string_view(&steps_.star, 1), GateInput::After::shut);
  co_await until(&State::stepped);
  s.step = false;
  Reply reply = std::exchange(s.receipt.reply(), {});
  reply.result = s.ended ? s.result : HostResult{};  // waiting for its next step: exit 0
  co_return reply;
}

asio::awaitable<HostResult> HeldAgent::run(InputSource& input, JobIo& io) {
  state_->after = &io;
  state_->gate.open(input, std::string_view(&steps_.relay, 1));
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
