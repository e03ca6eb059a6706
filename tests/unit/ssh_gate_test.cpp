#include "transport/ssh_gate.h"

#include <gtest/gtest.h>

#include <vector>

namespace pdx {
namespace {

TEST(SetupGate, AdmitsUpToTheLimitThenHandsSlotsOverInOrder) {
  SetupGate gate(2, 1000);
  std::vector<int> admitted;
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(3); }));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(4); }));
  EXPECT_TRUE(admitted.empty());
  gate.set_up();
  EXPECT_EQ(admitted, std::vector<int>{3});
  gate.leave(false);
  EXPECT_EQ(admitted, (std::vector<int>{3, 4}));
  gate.leave(false);
  gate.leave(false);
  EXPECT_TRUE(gate.enter([] {}));  // the slots came back
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([] {}));
}

// 5 descriptors: two sessions setting up (2 each), then, once both are set up (1 each), a
// third; a fourth only when one of them closes.
TEST(SetupGate, SessionsWaitForDescriptors) {
  SetupGate gate(100, 5);
  std::vector<int> admitted;
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(3); }));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(4); }));
  gate.set_up();  // 2 free
  EXPECT_EQ(admitted, std::vector<int>{3});
  gate.set_up();  // 1 free
  EXPECT_EQ(admitted, std::vector<int>{3});
  gate.leave(true);  // 2 free
  EXPECT_EQ(admitted, (std::vector<int>{3, 4}));
}

TEST(SetupGate, ANewcomerDoesNotPassThoseWaiting) {
  SetupGate gate(100, 3);
  std::vector<int> admitted;
  EXPECT_TRUE(gate.enter([] {}));
  EXPECT_FALSE(gate.enter([&] { admitted.push_back(2); }));
  gate.set_up();  // 2 free: the first in line
  EXPECT_EQ(admitted, std::vector<int>{2});
  EXPECT_FALSE(gate.enter([] {}));
}

}  // namespace
}  // namespace pdx
