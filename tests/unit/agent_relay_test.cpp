#include "agent/agent_relay.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "agent/agent.h"
#include "agent/relay_bridge.h"
#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "hash/xxh3.h"
#include "tests/unit/tcp_proxy.h"

namespace pdx {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// One agent_relay on a thread, its stdin and stdout pipes held here, as pdx holds them.
class Agent {
 public:
  // `local`: what takes the stream here; agent_receive under `dest` by default.
  explicit Agent(fs::path dest, RelayConsumer local = {})
      : dest_(std::move(dest)), local_(std::move(local)) {
    if (!local_)
      local_ = [this](FrameInput& in, int out) { return agent_receive(dest_.string(), in, out); };
    int in[2], out[2];
    EXPECT_EQ(::pipe(in), 0);
    EXPECT_EQ(::pipe(out), 0);
    to_ = in[1];
    from_ = out[0];
    thread_ = std::thread([this, in0 = in[0], out1 = out[1]] {
      result_.emplace(agent_relay(in0, out1, local_));
      ::close(in0);
      ::close(out1);
    });
  }
  ~Agent() {
    close_stdin();
    if (thread_.joinable()) thread_.join();
    ::close(from_);
  }
  void send(FrameType type, const std::string& payload) { write(encode_frame(type, payload)); }
  void write(const std::string& bytes) {
    ASSERT_EQ(::write(to_, bytes.data(), bytes.size()), ssize_t(bytes.size()));
  }
  void close_stdin() {
    if (to_ >= 0) ::close(std::exchange(to_, -1));
  }
  // The next frame it writes.
  Frame reply() {
    for (;;) {
      auto frame = decoder_.next();
      if (frame && *frame) return **frame;
      char buffer[4096];
      ssize_t n = ::read(from_, buffer, sizeof buffer);
      if (n <= 0) return {};
      decoder_.feed(std::string_view(buffer, std::size_t(n)));
    }
  }
  const Result<Summary>& result() {
    close_stdin();
    if (thread_.joinable()) thread_.join();
    return *result_;
  }

 private:
  fs::path dest_;
  RelayConsumer local_;
  int to_ = -1, from_ = -1;
  FrameDecoder decoder_;
  std::thread thread_;
  std::optional<Result<Summary>> result_;
};

// A push stream of one file NAME holding BYTES.
std::string stream_of(const std::string& name, const std::string& bytes) {
  FileHeader header;
  header.name = name;
  header.size = bytes.size();
  std::string stream = encode_frame(FrameType::file, encode(header));
  for (std::size_t at = 0; at < bytes.size(); at += kDataChunk)
    stream += encode_frame(FrameType::data, std::string_view(bytes).substr(at, kDataChunk));
  return stream +
         encode_frame(FrameType::file_end,
                      encode(FileEnd{hex(strong_hash(bytes.data(), bytes.size()))})) +
         encode_frame(FrameType::done, "");
}

class AgentRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::signal(SIGPIPE, SIG_IGN);  // as cmd/agent.cpp: a closed pipe is a failed write
    dir_ = fs::temp_directory_path() / ("agent_relay_test." + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

 public:
  const fs::path& dir() const { return dir_; }
  std::string read(const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path dir_;
  std::string secret_ = std::string(kRelaySecretSize, 'k');
};

// Sets up `chain` (in order, the first its head) as pdx does, up to go.
void link_up(const std::vector<Agent*>& chain, const std::string& secret) {
  std::vector<RelayPeer> where;
  for (std::size_t k = 0; k < chain.size(); ++k)
    chain[k]->send(FrameType::relay_setup, encode(RelaySetup{secret, k == 0, "127.0.0.1", 0, 0}));
  for (Agent* a : chain) {
    Frame heard = a->reply();
    ASSERT_EQ(heard.type, FrameType::relay_listening);
    where.push_back(*decode_relay_peer(heard.payload));
  }
  for (std::size_t k = 0; k < chain.size(); ++k) {
    RelayNext next;  // the hosts after k, as many levels as pdx tells a chain's host
    std::vector<RelayBranch>* level = &next.peers;
    for (std::size_t after = k + 1; after < chain.size() && after <= k + kMaxRelayDepth; ++after)
      level = &level->emplace_back(RelayBranch{where[after], {}}).below;
    chain[k]->send(FrameType::relay_next, encode(next));
  }
  for (Agent* a : chain) {
    Frame linked = a->reply();
    ASSERT_EQ(linked.type, FrameType::relay_linked);
    EXPECT_EQ(decode_relay_status(linked.payload)->error, "");
  }
  for (Agent* a : chain) a->send(FrameType::relay_go, "");
}

TEST_F(AgentRelayTest, AHostWhoseReceiveFailsStillForwardsEverything) {
  { std::ofstream(dir_ / "blocker") << "a file where the middle's DEST would go"; }
  Agent head(dir_ / "head"), middle(dir_ / "blocker" / "dest"), tail(dir_ / "tail");
  link_up({&head, &middle, &tail}, secret_);
  std::string data(9 * 1024 * 1024 + 7, 'm');  // more than a RelayQueue holds
  head.write(stream_of("file", data));
  head.close_stdin();
  EXPECT_TRUE(head.result());
  EXPECT_TRUE(tail.result()) << tail.result().error();
  EXPECT_EQ(read(dir_ / "tail" / "file"), data);
  EXPECT_FALSE(fs::exists(dir_ / "blocker" / "dest"));
}

TEST_F(AgentRelayTest, TheHeadWritesAndForwardsTheTailWrites) {
  Agent head(dir_ / "head"), tail(dir_ / "tail");
  head.send(FrameType::relay_setup, encode(RelaySetup{secret_, true, "127.0.0.1", 0, 0}));
  tail.send(FrameType::relay_setup, encode(RelaySetup{secret_, false, "127.0.0.1", 0, 0}));
  Frame heard = tail.reply();
  ASSERT_EQ(heard.type, FrameType::relay_listening);
  RelayPeer where = *decode_relay_peer(heard.payload);
  EXPECT_EQ(where.address, "127.0.0.1");
  EXPECT_EQ(head.reply().type, FrameType::relay_listening);
  tail.send(FrameType::relay_next, encode(RelayNext{}));
  head.send(FrameType::relay_next, encode(RelayNext{{{where, {}}}}));
  for (Agent* a : {&head, &tail}) {
    Frame linked = a->reply();
    ASSERT_EQ(linked.type, FrameType::relay_linked);
    EXPECT_EQ(decode_relay_status(linked.payload)->error, "");
  }
  tail.send(FrameType::relay_go, "");
  head.send(FrameType::relay_go, "");
  std::string data(3 * 1024 * 1024 + 5, 'd');
  head.write(stream_of("file", data));
  head.close_stdin();
  for (Agent* a : {&head, &tail}) {
    ASSERT_TRUE(a->result()) << a->result().error();
    EXPECT_EQ(a->result()->files, 1u);
  }
  EXPECT_EQ(read(dir_ / "head" / "file"), data);
  EXPECT_EQ(read(dir_ / "tail" / "file"), data);
}

TEST_F(AgentRelayTest, TheLocalConsumerTakesTheStreamAsItCame) {
  std::string seen;  // what the head's own consumer read: a patching agent's place
  Agent head(dir_ / "head", [&seen](FrameInput& in, int) -> Result<Summary> {
    char buffer[65536];
    for (std::size_t n; (n = in.read(buffer, sizeof buffer).value()) > 0;) seen.append(buffer, n);
    return Summary{1, seen.size(), 0};
  });
  Agent tail(dir_ / "tail");
  link_up({&head, &tail}, secret_);
  std::string data(2 * 1024 * 1024 + 1, 'c');
  std::string stream = stream_of("file", data);
  head.write(stream);
  head.close_stdin();
  ASSERT_TRUE(head.result()) << head.result().error();
  EXPECT_EQ(head.result()->bytes, stream.size());
  EXPECT_EQ(seen, stream);
  ASSERT_TRUE(tail.result()) << tail.result().error();
  EXPECT_EQ(read(dir_ / "tail" / "file"), data);
}

TEST_F(AgentRelayTest, TheHeadForwardsToEachOfItsChildren) {
  Agent head(dir_ / "head"), left(dir_ / "left"), right(dir_ / "right");
  std::vector<Agent*> all{&head, &left, &right};
  std::vector<RelayPeer> where;
  for (std::size_t k = 0; k < all.size(); ++k)
    all[k]->send(FrameType::relay_setup, encode(RelaySetup{secret_, k == 0, "127.0.0.1", 0, 0}));
  for (Agent* a : all) where.push_back(*decode_relay_peer(a->reply().payload));
  head.send(FrameType::relay_next, encode(RelayNext{{{where[1], {}}, {where[2], {}}}}));
  left.send(FrameType::relay_next, encode(RelayNext{}));
  right.send(FrameType::relay_next, encode(RelayNext{}));
  for (Agent* a : all) {
    Frame linked = a->reply();
    ASSERT_EQ(linked.type, FrameType::relay_linked);
    EXPECT_EQ(decode_relay_status(linked.payload)->error, "");
  }
  for (Agent* a : all) a->send(FrameType::relay_go, "");
  std::string data(9 * 1024 * 1024 + 3, 't');  // more than a RelayQueue holds
  head.write(stream_of("file", data));
  head.close_stdin();
  for (Agent* a : all) ASSERT_TRUE(a->result()) << a->result().error();
  for (const char* host : {"head", "left", "right"}) EXPECT_EQ(read(dir_ / host / "file"), data);
}

// Bytes that differ at every offset, so that a stream resumed from the wrong one shows.
std::string varied(std::size_t size) {
  std::string out(size, '\0');
  for (std::size_t i = 0; i < size; ++i) out[i] = char((i * 7 + i / 251) % 256);
  return out;
}

// The frames `agent` writes until its relay_end; what that says.
std::string relay_end_of(Agent& agent) {
  for (Frame f = agent.reply();; f = agent.reply()) {
    if (f.type == FrameType::relay_end) return decode_relay_status(f.payload)->error;
    if (f.type != FrameType::written && f.type != FrameType::summary) return "no relay_end";
  }
}

// head -> middle -> tail, where the middle is played here: it takes the stream from the head,
// forwards its first `forwarded` bytes to the tail, then (`before_dying`) dies, its links
// closed. The head bridges to the tail, which goes on from the offset it holds. With
// `dead_after_middle`, the head is told of a host between the middle and the tail, dead by then
// (a port nobody listens on): it bridges around both.
struct DyingMiddle {
  bool dead_after_middle = false;
  std::uint16_t dead_port = 0;
  std::string data = varied(12 * 1024 * 1024 + 11);  // more than a queue holds, less than kept
  std::size_t forwarded = 5 * 1024 * 1024 + 12345;   // not on a chunk's edge
  std::string head_said;                             // its relay_end
  std::uint16_t middle_port = 0, tail_port = 0;
};

void run_dying_middle(AgentRelayTest& test, DyingMiddle& run, const std::string& secret,
                      const std::function<void(RelayLink&, std::uint16_t tail)>& before_dying) {
  Agent head(test.dir() / "head"), tail(test.dir() / "tail");
  auto middle = relay_listen("127.0.0.1", 0, 0);
  ASSERT_TRUE(middle);
  head.send(FrameType::relay_setup, encode(RelaySetup{secret, true, "127.0.0.1", 0, 0}));
  tail.send(FrameType::relay_setup, encode(RelaySetup{secret, false, "127.0.0.1", 0, 0}));
  EXPECT_EQ(head.reply().type, FrameType::relay_listening);
  RelayPeer tail_at = *decode_relay_peer(tail.reply().payload);
  run.middle_port = middle->port;
  run.tail_port = tail_at.port;
  tail.send(FrameType::relay_next, encode(RelayNext{}));
  auto deadline = RelayLink::Clock::now() + 5s;
  auto to_tail = RelayLink::connect(tail_at.address, tail_at.port, secret, deadline);
  ASSERT_TRUE(to_tail) << to_tail.error();
  EXPECT_EQ(to_tail->offset(), 0u) << "a first link";
  std::optional<Result<RelayLink>> from_head;
  std::thread accepting(
      [&] { from_head.emplace(RelayLink::accept(middle->fd.get(), secret, deadline, 0)); });
  RelayBranch after_middle{tail_at, {}};
  if (run.dead_after_middle) {
    auto taken = relay_listen("127.0.0.1", 0, 0);  // a port, closed again: nobody listens there
    run.dead_port = taken->port;
    after_middle = RelayBranch{RelayPeer{"127.0.0.1", run.dead_port}, {after_middle}};
  }
  head.send(FrameType::relay_next,
            encode(RelayNext{{{RelayPeer{"127.0.0.1", middle->port}, {after_middle}}}}));
  for (Agent* a : {&head, &tail}) EXPECT_EQ(a->reply().type, FrameType::relay_linked);
  accepting.join();
  ASSERT_TRUE(*from_head) << from_head->error();
  for (Agent* a : {&head, &tail}) a->send(FrameType::relay_go, "");
  std::string stream = stream_of("file", run.data);
  std::thread writing([&] {
    head.write(stream);
    head.close_stdin();
  });
  for (std::size_t sent = 0; sent < run.forwarded;) {
    auto chunk = (*from_head)->receive(5s);
    ASSERT_TRUE(chunk && *chunk);
    std::string_view part = std::string_view(**chunk).substr(0, run.forwarded - sent);
    ASSERT_TRUE(to_tail->send(part));
    sent += part.size();
  }
  to_tail->close();
  before_dying(**from_head, tail_at.port);
  from_head->value().close();
  writing.join();
  ASSERT_TRUE(tail.result()) << tail.result().error();
  EXPECT_EQ(tail.result()->files, 1u);
  EXPECT_TRUE(test.read(test.dir() / "tail" / "file") == run.data) << "the tail's file differs";
  EXPECT_TRUE(head.result());
  run.head_said = relay_end_of(head);
}

TEST_F(AgentRelayTest, AHostThatDiesIsBridgedAndTheNextResumesFromTheOffsetItHolds) {
  DyingMiddle run;
  run_dying_middle(*this, run, secret_, [](RelayLink&, std::uint16_t) {});
  EXPECT_TRUE(run.head_said.starts_with("127.0.0.1 port " + std::to_string(run.middle_port) +
                                        " broke off ("))
      << run.head_said;
  std::string bridged =
      "): bridged around it to 127.0.0.1 port " + std::to_string(run.tail_port) + " from offset ";
  auto at = run.head_said.find(bridged);
  ASSERT_NE(at, std::string::npos) << run.head_said;
  // What the tail holds: what it read of what the middle forwarded (a link closed with bytes
  // unread is reset, and what the tail had not read yet is lost with it).
  std::uint64_t offset = std::stoull(run.head_said.substr(at + bridged.size()));
  EXPECT_GT(offset, 0u);
  EXPECT_LE(offset, run.forwarded);
}

TEST_F(AgentRelayTest, TwoDeadHostsInARowAreBridgedAround) {
  DyingMiddle run;
  run.dead_after_middle = true;
  run_dying_middle(*this, run, secret_, [](RelayLink&, std::uint16_t) {});
  std::string dead = "127.0.0.1 port " + std::to_string(run.dead_port);
  EXPECT_TRUE(run.head_said.starts_with("127.0.0.1 port " + std::to_string(run.middle_port) +
                                        " broke off ("))
      << run.head_said;
  std::string around = "): cannot bridge to " + dead + ": cannot connect to " + dead +
                       ": Connection refused: bridged around it to 127.0.0.1 port " +
                       std::to_string(run.tail_port) + " from offset ";
  EXPECT_NE(run.head_said.find(around), std::string::npos) << run.head_said;
}

TEST_F(AgentRelayTest, AHostThatDiesAfterTakingTheEndIsBridgedToo) {
  DyingMiddle run;
  run.forwarded = run.data.size();  // all but the stream's last frames' bytes
  bool ended = false;
  run_dying_middle(*this, run, secret_, [&](RelayLink& from_head, std::uint16_t) {
    for (;;) {  // the rest, and the end: the head's finish() waits on, for it to be passed on
      auto chunk = from_head.receive(5s);
      if (!chunk || !*chunk) {
        ended = bool(chunk);
        return;
      }
    }
  });
  EXPECT_TRUE(ended);
  EXPECT_NE(run.head_said.find("left before it had passed the stream on): bridged around it"),
            std::string::npos)
      << run.head_said;
}

TEST_F(AgentRelayTest, ABridgeWithoutTheSecretIsRefusedAndTheRealOneTaken) {
  DyingMiddle run;
  std::string forged;
  run_dying_middle(*this, run, secret_, [&](RelayLink&, std::uint16_t tail) {
    // The tail waits for a bridge now: one from a peer without the secret learns nothing.
    auto link = RelayLink::connect("127.0.0.1", tail, std::string(kRelaySecretSize, 'f'),
                                   RelayLink::Clock::now() + 5s);
    forged = link ? "linked" : link.error();
  });
  EXPECT_EQ(forged.substr(forged.find(':')), ": the peer does not hold this run's secret");
  EXPECT_TRUE(run.head_said.find("bridged around it") != std::string::npos) << run.head_said;
}

// A star's host (RelaySetup::direct) set up and linked from here as pdx links to it: the link.
RelayLink link_direct(Agent& host, const std::string& secret) {
  RelaySetup setup{secret, false, "127.0.0.1", 0, 0};
  setup.direct = true;
  host.send(FrameType::relay_setup, encode(setup));
  RelayPeer at = *decode_relay_peer(host.reply().payload);
  host.send(FrameType::relay_next, encode(RelayNext{}));
  auto up = RelayLink::connect(at.address, at.port, secret, RelayLink::Clock::now() + 5s);
  EXPECT_TRUE(up) << up.error();
  EXPECT_EQ(host.reply().type, FrameType::relay_linked);
  host.send(FrameType::relay_go, "");
  return std::move(*up);
}

// A star's direct link (RelaySetup::direct, pdx its upstream) is bridged by nobody: when it breaks,
// the host fails at once, naming pdx, not after waiting kBridgeWait for a bridge.
TEST_F(AgentRelayTest, ADirectLinkThatBreaksFailsAtOnce) {
  Agent host(dir_ / "host");
  RelayLink up = link_direct(host, secret_);
  std::string stream = stream_of("file", varied(3 * 1024 * 1024));
  ASSERT_TRUE(up.send(std::string_view(stream).substr(0, 1024 * 1024)));
  auto cut = RelayLink::Clock::now();
  up.cut();
  const auto& result = host.result();
  EXPECT_LT(RelayLink::Clock::now() - cut, 5s);
  ASSERT_FALSE(result);
  EXPECT_TRUE(result.error().starts_with("the stream from pdx broke off")) << result.error();
  EXPECT_FALSE(fs::exists(dir_ / "host" / "file"));
}

// A host that forwards to nobody reads its frames off the link's records themselves: frames cut
// across records of any size, and several in one, come whole; the end is passed on.
TEST_F(AgentRelayTest, AHostThatForwardsToNobodyTakesFramesCutAnyWayAcrossRecords) {
  Agent host(dir_ / "host");
  RelayLink up = link_direct(host, secret_);
  std::string data = varied(2 * 1024 * 1024 + 3);
  std::string stream = stream_of("file", data);
  std::size_t at = 0;
  for (std::size_t size : {std::size_t(1), std::size_t(3), std::size_t(7), kRelayMaxChunk - 1})
    for (int i = 0; i < 3 && at < stream.size(); ++i) {
      std::size_t n = std::min(size, stream.size() - at);
      ASSERT_TRUE(up.send(std::string_view(stream).substr(at, n)));
      at += n;
    }
  ASSERT_EQ(at, stream.size());
  EXPECT_TRUE(up.finish()) << "the host said it passed the stream on";
  ASSERT_TRUE(host.result()) << host.result().error();
  EXPECT_EQ(host.result()->files, 1u);
  EXPECT_TRUE(read(dir_ / "host" / "file") == data);
  EXPECT_EQ(relay_end_of(host), "");
}

// A consumer that stops early (its receive failed) leaves the rest of the stream: it is read to
// the end all the same, so that upstream is not held up, and the host says it passed it on.
TEST_F(AgentRelayTest, AHostWhoseReceiveStopsEarlyStillTakesTheStreamToItsEnd) {
  Agent host(dir_ / "host", [](FrameInput& in, int) -> Result<Summary> {
    FrameReader reader(in);
    TRY(reader.next());
    return Error{"the receive stopped"};
  });
  RelayLink up = link_direct(host, secret_);
  std::string stream = stream_of("file", varied(5 * 1024 * 1024));
  for (std::size_t at = 0; at < stream.size(); at += kRelayMaxChunk)
    ASSERT_TRUE(up.send(std::string_view(stream).substr(at, kRelayMaxChunk)));
  EXPECT_TRUE(up.finish());
  ASSERT_FALSE(host.result());
  EXPECT_EQ(host.result().error(), "the receive stopped");
  EXPECT_EQ(relay_end_of(host), "");
}

// The receipt's check is what a bridge that resumed from the wrong offset would meet: the file
// fails, and nothing is left under its name.
TEST_F(AgentRelayTest, ABridgeFromAWrongOffsetFailsTheFileAndWritesNothing) {
  Agent tail(dir_ / "tail");
  tail.send(FrameType::relay_setup, encode(RelaySetup{secret_, false, "127.0.0.1", 0, 0}));
  RelayPeer at = *decode_relay_peer(tail.reply().payload);
  tail.send(FrameType::relay_next, encode(RelayNext{}));
  auto up = RelayLink::connect(at.address, at.port, secret_, RelayLink::Clock::now() + 5s);
  ASSERT_TRUE(up) << up.error();
  EXPECT_EQ(tail.reply().type, FrameType::relay_linked);
  tail.send(FrameType::relay_go, "");
  std::string stream = stream_of("file", varied(3 * 1024 * 1024));
  ASSERT_TRUE(up->send(std::string_view(stream).substr(0, 1024 * 1024)));
  std::this_thread::sleep_for(50ms);
  up->close();
  auto bridge = RelayLink::connect(at.address, at.port, secret_, RelayLink::Clock::now() + 5s);
  ASSERT_TRUE(bridge) << bridge.error();
  std::string_view rest = std::string_view(stream).substr(bridge->offset() + 7);  // 7 bytes off
  for (std::size_t sent = 0; sent < rest.size(); sent += kRelayMaxChunk)
    ASSERT_TRUE(bridge->send(rest.substr(sent, kRelayMaxChunk)));
  EXPECT_TRUE(bridge->finish());
  const auto& result = tail.result();
  EXPECT_TRUE(!result || result->failures > 0);
  EXPECT_FALSE(fs::exists(dir_ / "tail" / "file"));
}

// A head and a tail linked through a proxy that hands the head's bytes through `change`; `data`
// pushed as one file.
void relay_through_proxy(Agent& head, Agent& tail, const std::string& secret,
                         const std::string& data, Proxy::Change change) {
  head.send(FrameType::relay_setup, encode(RelaySetup{secret, true, "127.0.0.1", 0, 0}));
  tail.send(FrameType::relay_setup, encode(RelaySetup{secret, false, "127.0.0.1", 0, 0}));
  RelayPeer where = *decode_relay_peer(tail.reply().payload);
  EXPECT_EQ(head.reply().type, FrameType::relay_listening);
  Proxy proxy(where.port, std::move(change));
  tail.send(FrameType::relay_next, encode(RelayNext{}));
  head.send(FrameType::relay_next, encode(RelayNext{{{RelayPeer{"127.0.0.1", proxy.port()}, {}}}}));
  for (Agent* a : {&head, &tail}) EXPECT_EQ(a->reply().type, FrameType::relay_linked);
  tail.send(FrameType::relay_go, "");
  head.send(FrameType::relay_go, "");
  head.write(stream_of("file", data));
  head.close_stdin();
  (void)tail.result();  // the proxy goes once the link does
}

TEST_F(AgentRelayTest, TheStreamCrossesTheLinkEncrypted) {
  std::string data;
  while (data.size() < 2 * 1024 * 1024) data += "a plaintext marker on its way to the tail; ";
  std::string wire;
  Agent head(dir_ / "head"), tail(dir_ / "tail");
  relay_through_proxy(head, tail, secret_, data,
                      [&wire](std::size_t, std::string& bytes) { wire += bytes; });
  ASSERT_TRUE(tail.result()) << tail.result().error();
  EXPECT_EQ(read(dir_ / "tail" / "file"), data);
  EXPECT_GT(wire.size(), data.size());
  EXPECT_EQ(wire.find("plaintext marker"), std::string::npos);
}

TEST_F(AgentRelayTest, AByteChangedOnTheLinkFailsTheHostAfterItAndWritesNothing) {
  std::string data(3 * 1024 * 1024, 'x');
  Agent head(dir_ / "head"), tail(dir_ / "tail");
  relay_through_proxy(head, tail, secret_, data, [](std::size_t offset, std::string& bytes) {
    constexpr std::size_t kAt = 2 * 1024 * 1024;  // inside the stream's third record
    if (kAt >= offset && kAt < offset + bytes.size()) bytes[kAt - offset] ^= 0x20;
  });
  ASSERT_FALSE(tail.result());
  EXPECT_EQ(tail.result().error(),
            "the stream from upstream broke off: a relay chunk failed its check, and no bridge "
            "came in " +
                std::to_string(kBridgeWait.count() / 1000) + " s");
  EXPECT_FALSE(fs::exists(dir_ / "tail" / "file"));
  ASSERT_TRUE(head.result()) << head.result().error();
  EXPECT_EQ(read(dir_ / "head" / "file"), data);
}

TEST_F(AgentRelayTest, AnEndOfInputBeforeGoCallsTheRelayOff) {
  Agent tail(dir_ / "tail");
  tail.send(FrameType::relay_setup, encode(RelaySetup{secret_, false, "127.0.0.1", 0, 0}));
  EXPECT_EQ(tail.reply().type, FrameType::relay_listening);
  tail.send(FrameType::relay_next, encode(RelayNext{}));
  EXPECT_EQ(tail.reply().type, FrameType::relay_linked);
  ASSERT_FALSE(tail.result());
  EXPECT_EQ(tail.result().error(), "the relay was called off");
  EXPECT_FALSE(fs::exists(dir_ / "tail"));
}

TEST_F(AgentRelayTest, ANextHostNobodyListensOnIsALinkError) {
  auto taken = relay_listen("127.0.0.1", 0, 0);  // a port, closed again: nobody listens there
  std::uint16_t port = taken->port;
  taken->fd.reset();
  Agent head(dir_ / "head");
  head.send(FrameType::relay_setup, encode(RelaySetup{secret_, true, "127.0.0.1", 0, 0}));
  EXPECT_EQ(head.reply().type, FrameType::relay_listening);
  head.send(FrameType::relay_next, encode(RelayNext{{{RelayPeer{"127.0.0.1", port}, {}}}}));
  Frame linked = head.reply();
  ASSERT_EQ(linked.type, FrameType::relay_linked);
  EXPECT_EQ(decode_relay_status(linked.payload)->error,
            "cannot connect to 127.0.0.1 port " + std::to_string(port) + ": Connection refused");
}

TEST_F(AgentRelayTest, AMalformedSetupIsAnError) {
  Agent agent(dir_ / "a");
  agent.send(FrameType::relay_setup, "garbage");
  ASSERT_FALSE(agent.result());
  EXPECT_EQ(agent.result().error(), "malformed relay setup frame");
}

}  // namespace
}  // namespace pdx
