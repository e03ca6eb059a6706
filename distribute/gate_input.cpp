#include "distribute/gate_input.h"

#include <algorithm>
#include <utility>

namespace pdx {

void GateInput::open(InputSource& inner, std::string_view prefix) {
  if (state_ != State::shut) return;
  inner_ = &inner;
  prefix_ = prefix;
  state_ = State::open;
  if (stall_) inner_->on_stall(std::move(stall_));
  if (finished_) inner_->finish();
  wake();
}

void GateInput::close() {
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
  return inner_->next();
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
  if (inner_)
    inner_->on_stall(std::move(fail));
  else
    stall_ = std::move(fail);
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
