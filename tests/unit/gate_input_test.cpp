#include "distribute/gate_input.h"

#include <gtest/gtest.h>

#include <string>

namespace pdx {
namespace {

// What `input` hands out until it says wait or ends, taken whole.
std::string drain(InputSource& input, InputPiece::State& last) {
  std::string got;
  for (;;) {
    InputPiece piece = input.next();
    last = piece.state;
    if (piece.state != InputPiece::State::data) return got;
    got += piece.bytes;
    input.consume(piece.bytes.size());
  }
}

TEST(GateInput, ShutWaitsThenOpensOntoItsPrefixAndInput) {
  GateInput gate;
  BytesInput stream("stream");
  bool woken = false;
  InputPiece::State last;
  EXPECT_EQ(drain(gate, last), "");
  EXPECT_EQ(last, InputPiece::State::wait);
  gate.on_ready([&] { woken = true; });
  gate.open(stream, "r");
  EXPECT_TRUE(woken);
  EXPECT_EQ(drain(gate, last), "rstream");
  EXPECT_EQ(last, InputPiece::State::end);
}

TEST(GateInput, ALeadComesWholeBeforeTheWait) {
  auto lead = std::make_unique<BytesInput>("requests");
  GateInput gate(lead.get());
  InputPiece::State last;
  EXPECT_EQ(drain(gate, last), "requests");
  EXPECT_EQ(last, InputPiece::State::wait);  // not its end: the command waits for its next step
  EXPECT_EQ(drain(gate, last), "");
  EXPECT_EQ(last, InputPiece::State::wait);
  BytesInput deltas("deltas");
  gate.open(deltas, "p");
  EXPECT_EQ(drain(gate, last), "pdeltas");
  EXPECT_EQ(last, InputPiece::State::end);
}

TEST(GateInput, ClosedAfterItsLeadEnds) {
  BytesInput lead("requests");
  GateInput gate(&lead);
  InputPiece::State last;
  EXPECT_EQ(drain(gate, last), "requests");
  gate.close();
  EXPECT_EQ(drain(gate, last), "");
  EXPECT_EQ(last, InputPiece::State::end);
}

TEST(GateInput, ShutsAgainAfterAStepForTheNextOrItsEnd) {
  GateInput gate;
  int shut = 0;
  gate.on_shut([&] { ++shut; });
  InputPiece::State last;
  BytesInput deltas("deltas");
  gate.open(deltas, "p", GateInput::After::shut);
  EXPECT_EQ(drain(gate, last), "pdeltas");
  EXPECT_EQ(last, InputPiece::State::wait);  // the command waits for its next step
  EXPECT_TRUE(gate.shut());
  EXPECT_EQ(shut, 1);
  bool woken = false;
  gate.on_ready([&] { woken = true; });
  BytesInput names("names");
  gate.open(names, "d", GateInput::After::shut);
  EXPECT_TRUE(woken);
  EXPECT_EQ(drain(gate, last), "dnames");
  EXPECT_EQ(shut, 2);
  gate.close();
  EXPECT_EQ(drain(gate, last), "");
  EXPECT_EQ(last, InputPiece::State::end);
}

TEST(GateInput, ClosedWhileOpenEndsAtItsInputsEnd) {
  GateInput gate;
  InputPiece::State last;
  BytesInput whole("whole");
  gate.open(whole, "r", GateInput::After::shut);
  gate.close();  // the agent's reply went wrong: no step after this one
  EXPECT_EQ(drain(gate, last), "rwhole");
  EXPECT_EQ(last, InputPiece::State::end);
}

}  // namespace
}  // namespace pdx
