#include "distribute/staging_run.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace pdx {
namespace {

struct Fixture {
  std::vector<Host> hosts{{"h1", "", 0, 0}, {"h2", "bob", 0, 0}};
  JobTemplate tmpl;
  AgentLocation agent;
  std::vector<std::string> local;
  StagingRun run{hosts, tmpl, agent, -1, local};
  Fixture() { tmpl.default_user = "alice"; }
};

TEST(StagingRun, CommandsAsEachHostRunsThem) {
  Fixture f;
  EXPECT_EQ(f.run.command_for(0, "ls /d/%h.%n %u"), "ls /d/h1.0 alice");
  EXPECT_EQ(f.run.command_for(1, "ls /d/%h.%n %u"), "ls /d/h2.1 bob");
}

TEST(StagingRun, WhatCouldNotBeReadHereIsSaidOnce) {
  Fixture f;
  f.run.note_local({"a: gone", "b: gone"});
  f.run.note_local({"a: gone"});
  EXPECT_EQ(f.local, (std::vector<std::string>{"a: gone", "b: gone"}));
}

TEST(StagingRun, AgentsReplacedAndStaticBuildsSentAreNotedByHost) {
  Fixture f;
  AgentStarted started;
  f.run.note_agent(0, started);
  EXPECT_TRUE(f.run.replaced.empty());
  EXPECT_TRUE(f.run.statics.empty());
  started.replaced = true;
  started.static_needed = "libssh2.so.1: not found";
  f.run.note_agent(1, started);
  EXPECT_EQ(f.run.replaced, std::vector<std::size_t>{1});
  ASSERT_EQ(f.run.statics.size(), 1u);
  EXPECT_EQ(f.run.statics[0].first, 1u);
  EXPECT_EQ(f.run.statics[0].second, "libssh2.so.1: not found");
}

TEST(StagingRun, NoRelayCalledOffSaysNothing) {
  Fixture f;
  EXPECT_EQ(f.run.called_off_text(), "");
  f.run.note_forwarded(1, "the link to h3 broke off");
  EXPECT_EQ(f.run.forwarded.size(), 1u);
}

TEST(StagingRun, WhatASeatingThrowsIsTheRunsFatalErrorAndNothingIsSeatedAfter) {
  Fixture f;
  EXPECT_EQ(f.run.unless_fatal([] { return std::vector<int>{1, 2}; }), (std::vector<int>{1, 2}));
  EXPECT_NO_THROW(f.run.rethrow_fatal());
  EXPECT_TRUE(f.run.unless_fatal([]() -> std::vector<int> { throw std::runtime_error("no pipe"); })
                  .empty());
  bool seated = false;
  EXPECT_TRUE(f.run
                  .unless_fatal([&] {
                    seated = true;
                    return std::vector<int>{3};
                  })
                  .empty());
  EXPECT_FALSE(seated);
  EXPECT_THROW(f.run.rethrow_fatal(), std::runtime_error);
}

TEST(StagingRun, InterruptedIsAFailureOfItsOwn) {
  HostResult r = interrupted();
  EXPECT_EQ(r.failure, Failure::interrupted);
  EXPECT_EQ(r.error, "interrupted");
}

}  // namespace
}  // namespace pdx
