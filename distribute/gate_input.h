#pragma once
// A command's stdin held shut until the caller opens it onto another input (with a few bytes in
// front) or closes it (its end at once): what a host's command is sent only once it is ready for
// it (distribute/held_agent.h: the agent that listed, told its mode; distribute/agent_start.h:
// an upload, once its shell reads).
//
//   shut:   the lead's bytes, if any, to its end; then next() says wait, on_ready's wake kept for
//           open() or close()
//   open:   `prefix`, then the inner input's pieces (its on_ready, on_stall and finish); at the
//           inner input's end, closed, or (After::shut) shut again, the inner input finished and
//           on_shut's callback called: the command reads on, and is given its next input later
//   closed: next() says end
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "transport/input_source.h"

namespace pdx {

class GateInput final : public InputSource {
 public:
  GateInput() = default;
  /// While shut, `lead` (which outlives this, and never waits: a file) to its end first: what
  /// the command reads before it waits (sync's signature requests).
  explicit GateInput(InputSource* lead) : lead_(lead) {}
  /// What becomes of the gate at its inner input's end.
  enum class After { end, shut };
  /// From now on `prefix` and then `inner` (which outlives this, or its end with After::shut).
  /// Only while shut.
  void open(InputSource& inner, std::string_view prefix = {}, After after = After::end);
  /// The end of input: at once if shut, else at the inner input's end.
  void close();
  bool shut() const { return state_ == State::shut; }
  /// `shut` is called each time the gate shuts again after an inner input (After::shut).
  void on_shut(std::function<void()> shut) { on_shut_ = std::move(shut); }

  InputPiece next() override;
  void consume(std::size_t n) override;
  void on_ready(std::function<void()> wake) override;
  void on_stall(std::function<void(const std::string&)> fail) override;
  void finish() override;

 private:
  enum class State { shut, closed, open };
  void wake();

  State state_ = State::shut;
  InputSource* lead_ = nullptr;  // until its end
  std::string prefix_;           // what is left of it
  InputSource* inner_ = nullptr;
  After after_ = After::end;
  std::function<void()> wake_, on_shut_;
  std::function<void(const std::string&)> stall_;  // kept for each inner input
  bool finished_ = false;
};

}  // namespace pdx
