#include "distribute/relay/relay_group.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <csignal>

#include "base/fd.h"
#include "core/executor.h"
#include "core/jobs.h"
#include "tests/unit/fake_transport.h"

namespace pdx {
namespace {

using test::FakeExec;
using test::FakeHost;
using test::FakeTransport;

class NoOutput final : public OutputSink {
 public:
  explicit NoOutput(RelayGroup& group) : group_(group) {}
  void output(std::size_t, Stream, std::string_view) override {}
  void finished(std::size_t index, const HostResult&) override { group_.ended(index); }

 private:
  RelayGroup& group_;
};

// Each host's --relay command ends at once, saying nothing: the chain cannot link up, and each
// host runs the star command on its reader of the group's stream from here, which it echoes.
TEST(RelayGroupTest, AChainThatCannotLinkUpIsSentFromHereSaidInOneLine) {
  std::signal(SIGPIPE, SIG_IGN);
  Fd stream_fd(::memfd_create("relay_group_test", MFD_CLOEXEC));  // the group's stream
  const std::string stream(300000, 's');
  ASSERT_EQ(::write(stream_fd.get(), stream.data(), stream.size()), ssize_t(stream.size()));
  ASSERT_EQ(::lseek(stream_fd.get(), 0, SEEK_SET), 0);

  FakeTransport transport([](const Job&) {
    FakeHost host;
    host.execs = {FakeExec{}, FakeExec{}};
    host.execs[0].exit_status = 1;
    host.execs[1].echo_stdin = true;
    return host;
  });
  std::vector<Host> hosts(2);
  hosts[0].name = "a";
  hosts[1].name = "b";
  std::vector<Job> jobs = make_jobs(hosts, JobTemplate{});
  RelayGroup group({"a", "b"}, RelayOptions{}, stream_fd.get(), stream.size());
  std::vector<RelayGroup::Ran> ran(2);
  NoOutput sink(group);
  execute_tasks(transport, jobs, sink, {2, 0},
                [&](Session& session, const Job& job, JobIo&,
                    StopSignal& stop) -> boost::asio::awaitable<HostResult> {
                  RelayGroup::Ran& mine = ran[job.index];
                  auto relayed = co_await group.relayed(session, job, job.index, "relay",
                                                        DataVia::ssh, nullptr, stop);
                  if (relayed) {
                    mine = std::move(*relayed);
                    co_return mine.reply.result;
                  }
                  auto source = group.star_source();
                  if (!source) {
                    mine.error = source.error();
                    co_return HostResult{};
                  }
                  BroadcastInput input(**source, job.index);
                  mine.reply = co_await run_command(session, job, "star", &input, stop);
                  co_return mine.reply.result;
                });
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(transport.commands(k), (std::vector<std::string>{"relay", "star"}));
    EXPECT_EQ(ran[k].error, "");
    EXPECT_EQ(ran[k].reply.out, stream) << "host " << k;
  }
  auto off = group.called_off();
  ASSERT_TRUE(off);
  EXPECT_EQ(off->hosts, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(off->reason.empty());
}

TEST(RelayGroupTest, TheCalledOffLineFoldsItsHosts) {
  EXPECT_EQ(called_off_line({"h3", "h1", "h2", "h1"}, "h2: refused"),
            "h[1-3]: the relay could not link up (h2: refused); sending from here");
}

// A host's word on its links is untrusted: one printable line, bounded.
TEST(RelayGroupTest, WhatAHostSaysOfItsLinksIsMadePrintableAndBounded) {
  EXPECT_EQ(forwarded_said(""), "");
  EXPECT_EQ(forwarded_said("h2 broke off (reset)\n\x1b[2J"), "h2 broke off (reset)\\n\\x1b[2J");
  std::string said = forwarded_said(std::string(5000, 'x') + "\n");
  EXPECT_EQ(said, std::string(kMaxForwarded, 'x') + "...");
}

}  // namespace
}  // namespace pdx
