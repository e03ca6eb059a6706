#include "distribute/gate_input.h"

#include <algorithm>
#include <utility>

namespace pdx {

void GateInput::open(InputSource& inner, std::string_view prefix, After after) {
  if (state_ != State::shut) return;
  inner_ = &inner;
  prefix_ = prefix;
  after_ = after;
  state_ = State::open;
  if (stall_) inner_->on_stall(stall_);
  if (finished_) inner_->finish();
  wake();
}

void GateInput::close() {
  after_ = After::end;
  if (state_ != State::shut) return;
  state_ = State::closed;
  wake();
}

InputPiece GateInput::next() {
  switch (state_) {
    case State::shut:
      if (lead_) {
        InputPiece piece = lead_->next();
        if (piece.state != InputPiece::State::end) return piece;
        lead_ = nullptr;
      }
      return {InputPiece::State::wait, {}, {}};
    case State::closed:
      return {InputPiece::State::end, {}, {}};
    case State::open:
      break;
  }
  if (!prefix_.empty()) return {InputPiece::State::data, prefix_, {}};
  InputPiece piece = inner_->next();
  if (piece.state != InputPiece::State::end || after_ == After::end) return piece;
  std::exchange(inner_, nullptr)->finish();
  state_ = State::shut;
  if (on_shut_) on_shut_();
  return {InputPiece::State::wait, {}, {}};
}

void GateInput::consume(std::size_t n) {
  if (state_ == State::shut && lead_) return lead_->consume(n);
  if (state_ != State::open) return;
  std::size_t own = std::min(n, prefix_.size());
  prefix_.erase(0, own);
  if (n > own) inner_->consume(n - own);
}

void GateInput::on_ready(std::function<void()> wake) {
  if (state_ == State::open && prefix_.empty())
    inner_->on_ready(std::move(wake));
  else
    wake_ = std::move(wake);
}

void GateInput::on_stall(std::function<void(const std::string&)> fail) {
  stall_ = std::move(fail);
  if (inner_) inner_->on_stall(stall_);
}

void GateInput::finish() {
  finished_ = true;
  if (lead_) lead_->finish();
  if (inner_) inner_->finish();
}

void GateInput::wake() {
  if (auto w = std::exchange(wake_, nullptr)) w();
}

}  // namespace pdx
