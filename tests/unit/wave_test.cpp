#include "distribute/wave.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <string>
#include <vector>

namespace asio = boost::asio;

namespace pdx {
namespace {

// A group that records which of its readers left.
struct Group {
  std::vector<std::size_t> members;
  std::vector<std::size_t> left;
  void leave(std::size_t reader) { left.push_back(reader); }
};

// Every host that arrived in one group, the hosts' positions seen by each seating kept.
struct Seatings {
  std::vector<std::vector<std::size_t>> seen;
  Wave<Group>::Seating one() {
    return [this](const std::vector<std::size_t>& arrived) {
      seen.push_back(arrived);
      return std::vector<Group>{Group{arrived, {}}};
    };
  }
};

TEST(Wave, EachMeetingSeatsTheHostsThatArrivedAndAnEndLeavesItsGroups) {
  Seatings seatings;
  Wave<Group> wave(3, {seatings.one(), seatings.one()});
  asio::io_context ctx;
  std::vector<StopSignal> stops(3);
  std::vector<int> met(3, 0);
  // Hosts 0 and 1 meet twice; host 2 ends before the first meeting.
  for (std::size_t k = 0; k < 2; ++k)
    asio::co_spawn(
        asio::make_strand(ctx),
        [&, k]() -> asio::awaitable<void> {
          for (std::size_t m = 0; m < 2; ++m) {
            if (!co_await wave.meet(m, k, stops[k])) co_return;
            EXPECT_EQ(wave.seat(m, k).reader, k);
            ++met[k];
          }
        },
        asio::detached);
  EXPECT_TRUE(wave.ended(2).empty());
  ctx.run();
  EXPECT_EQ(met, (std::vector<int>{2, 2, 0}));
  EXPECT_EQ(seatings.seen, (std::vector<std::vector<std::size_t>>{{0, 1}, {0, 1}}));
  EXPECT_EQ(wave.seat(0, 2).group, nullptr);
  EXPECT_TRUE(wave.ended(0).empty());
  std::vector<Group> done = wave.ended(1);  // the last: every meeting's groups back
  ASSERT_EQ(done.size(), 2u);
  for (const Group& group : done) EXPECT_EQ(group.left, (std::vector<std::size_t>{0, 1}));
}

TEST(Wave, AWaveWhoseHostsAllEndSeatsNobody) {
  Seatings seatings;
  Wave<Group> wave(2, {seatings.one()});
  EXPECT_TRUE(wave.ended(0).empty());
  std::vector<Group> done = wave.ended(1);
  EXPECT_EQ(seatings.seen, (std::vector<std::vector<std::size_t>>{{}}));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(done[0].members.empty());
}

}  // namespace
}  // namespace pdx
