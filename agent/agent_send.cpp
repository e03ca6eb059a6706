#include "agent/agent_send.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "agent/link_beat.h"
#include "agent/relay_frames.h"
#include "agent/relay_link.h"
#include "archive/pack.h"
#include "archive/tar_member.h"
#include "base/quiet_threads.h"

namespace pdx {

namespace {

using namespace std::chrono_literals;
using Clock = RelayLink::Clock;

constexpr auto kLinkTime = 30s;  // for pdx to link, from this host's relay_listening
// While packing is held up (a read that blocks: a hung NFS mount, a slow disk), a keepalive
// when nothing went for this long, well within pdx's kRelayStall.
constexpr std::chrono::milliseconds kKeepaliveEvery = 1s;

// Where tar's `-C DIR ./NAME` for one REMOTE reads (DIR/NAME), and the name it stores it under
// (archive/tar_member, as pull_command names it to tar, without the shell).
struct Member {
  std::string path;
  std::string stored;
};

Result<Member> member(const std::string& remote) {
  auto [dir, name] = TRY(tar_member(remote));
  return Member{(dir == "/" ? "" : dir) + "/" + name, name == "." ? "." : "./" + name};
}

// "./TOP/..." as "./TOP<suffix>/...": GNU tar's --transform='s|^\./[^/][^/]*|&SUFFIX|S'.
std::string with_suffix(const std::string& name, const std::string& suffix) {
  if (!name.starts_with("./") || name.size() == 2 || name[2] == '/') return name;
  std::size_t end = std::min(name.find('/', 2), name.size());
  return name.substr(0, end) + suffix + name.substr(end);
}

// The pack's bytes, over the link in chunks of at most kRelayMaxChunk.
class LinkSink final : public ByteSink {
 public:
  explicit LinkSink(RelayLink& link) : link_(link) {}
  Result<void> write(const void* data, std::size_t size) override {
    std::string_view bytes(static_cast<const char*>(data), size);
    while (!bytes.empty()) {
      std::string_view part = bytes.substr(0, kRelayMaxChunk);
      TRY(link_.send(part));
      bytes.remove_prefix(part.size());
      written_ += part.size();
    }
    return {};
  }
  Result<void> finish() override { return {}; }
  std::vector<WrittenFile> files() const override { return {}; }
  std::uint64_t written() const override { return written_; }

 private:
  RelayLink& link_;
  std::uint64_t written_ = 0;
};

// The stream of every REMOTE over `link`, to its end; as tar, a REMOTE that is not there, or a
// file or directory in one that cannot be read, is left out, and the first such is the host's
// complaint once the rest went, with how many more: its text, or "".
Result<std::string> send_members(const SendRequest& request, RelayLink& link) {
  PackOptions options;
  std::string complaint;
  std::size_t more = 0;
  auto complain = [&](const std::string& error) {
    if (complaint.empty())
      complaint = error;
    else
      ++more;
  };
  for (const auto& remote : request.remotes) {
    Member m = TRY(member(remote));
    struct stat st {};
    if (::lstat(m.path.c_str(), &st) != 0) {
      complain(remote + ": Cannot stat: " + std::strerror(errno));
      continue;
    }
    if (!request.directories && ::stat(m.path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      return Error{"use -r to copy directories: " + remote};
    options.sources.push_back(std::move(m.path));
    options.names.push_back(std::move(m.stored));
  }
  if (!request.suffix.empty())
    options.rename = [&](const std::string& name) { return with_suffix(name, request.suffix); };
  options.on_unreadable = complain;
  LinkSink sink(link);
  {
    LinkBeat alive(kKeepaliveEvery, [&link] { link.keepalive_if_quiet(kKeepaliveEvery); });
    TRY(pack(options, sink));
  }
  TRY(link.finish());
  if (more) complaint += " (and " + std::to_string(more) + " more)";
  return complaint;
}

// The listener, and pdx's link accepted on it on a thread of its own while stdin says whether
// pdx linked. Shared, so that an agent whose pdx could not link can leave without waiting for it.
struct Accepted {
  RelayListener listener;
  std::mutex mutex;
  std::optional<RelayLink> link;
  std::string error;
};

// pdx's link, once relay_go came on `in` (the accept's thread is then about done).
Result<RelayLink> take_link(const std::shared_ptr<Accepted>& accepted, std::thread& thread,
                            int in) {
  if (!read_frame(in, FrameType::relay_go)) {
    thread.detach();  // still waiting for a link that will not come: it goes with the process
    return Error{"pdx never linked"};
  }
  thread.join();
  std::lock_guard lock(accepted->mutex);
  if (!accepted->link) return Error{"pdx never linked: " + accepted->error};
  return std::move(*accepted->link);
}

}  // namespace

Result<void> agent_send(const SendRequest& request, int in, int out) {
  Frame setup_frame = TRY(read_frame(in, FrameType::relay_setup));
  RelaySetup setup = TRY(decode_relay_setup(setup_frame.payload));
  std::string address = setup.bind.empty() ? ssh_address() : setup.bind;
  auto accepted = std::make_shared<Accepted>();
  accepted->listener = TRY(relay_listen(address, setup.low, setup.high));
  std::uint16_t port = accepted->listener.port;
  std::thread thread;
  {
    QuietThreads quiet;  // Ctrl-C is the process's
    thread = std::thread([accepted, secret = setup.secret] {
      auto link = RelayLink::accept(accepted->listener.fd.get(), secret, Clock::now() + kLinkTime,
                                    0, LinkFlow::to_connector);
      std::lock_guard lock(accepted->mutex);
      if (link)
        accepted->link.emplace(std::move(*link));
      else
        accepted->error = link.error();
    });
  }
  if (auto said = write_frame(out, FrameType::relay_listening, encode(RelayPeer{address, port}));
      !said) {
    thread.detach();
    return said;
  }
  RelayLink link = TRY(take_link(accepted, thread, in));
  auto sent = send_members(request, link);
  if (!sent) {
    link.give_up();
    return Error{sent.error()};
  }
  if (!sent->empty()) return Error{*sent};
  return {};
}

}  // namespace pdx
