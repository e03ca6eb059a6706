#include "transport/ssh_gate.h"

#include <gtest/gtest.h>

#include <vector>

namespace pdx {
namespace {

TEST(SetupGate, AdmitsUpToTheLimitThenHandsSlotsOverInOrder) {
  SetupGate gate(2);
  std::vector<int> admitted;
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(3); }));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(4); }));
  EXPECT_TRUE(admitted.empty());
  gate.leave();
  EXPECT_EQ(admitted, std::vector<int>{3});
  gate.leave();
  EXPECT_EQ(admitted, (std::vector<int>{3, 4}));
  gate.leave();
  gate.leave();
  EXPECT_TRUE(gate.enter([] {}));  // the slots came back
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([] {}));
}

}  // namespace
}  // namespace pdx
