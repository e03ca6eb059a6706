#include "distribute/agent_start.h"

#include <fcntl.h>

#include <algorithm>
#include <string_view>

#include "base/error.h"
#include "base/fd.h"
#include "core/hostset.h"
#include "distribute/file_input.h"
#include "distribute/gate_input.h"

namespace pdx {

std::optional<std::string> agent_cannot_run(const ReplySink::Reply& reply, bool deployed) {
  if (!reply.out.empty() || reply.result.failure != Failure::none || !reply.result.signal.empty())
    return std::nullopt;
  int status = reply.result.exit_status;
  if (status == 126 || status == 127) return host_said(reply);
  if (status == kAgentNoExec || (deployed && status == kAgentMissing))
    return std::string("its copy in ~/.cache/pdx is not executable");
  if (deployed && status == kAgentUntrusted)
    return std::string("its copy in ~/.cache/pdx fails its checks once uploaded");
  return std::nullopt;
}

namespace {

// Whether frames decode from the start of `out` (its end may be cut short), from a first header.
bool frames_from(std::string_view out) {
  if (out.size() < kFrameHeaderBytes) return false;
  FrameDecoder header;  // cheap first: the whole rest is fed only behind a valid header
  header.feed(out.substr(0, kFrameHeaderBytes));
  if (!header.next()) return false;
  FrameDecoder decoder;
  decoder.feed(out);
  for (;;) {
    auto frame = decoder.next();
    if (!frame) return false;
    if (!*frame) return true;
  }
}

}  // namespace

std::optional<std::string> shell_preamble(const ReplySink::Reply& reply) {
  const std::string& out = reply.out;
  if (out.empty() || reply.result.failure != Failure::none) return std::nullopt;
  int status = reply.result.exit_status;
  if (reply.result.signal.empty() &&
      (status == 126 || status == 127 || status == kAgentNoExec || agent_upload_needed(status)))
    return shell_preamble_said(out, out.size());  // the sh line writes nothing before the agent
  FrameDecoder first;
  first.feed(std::string_view(out).substr(0, kFrameHeaderBytes));
  if (first.next()) return std::nullopt;  // a frame's first byte and length: the agent's
  // Text (what a startup file prints) up to where frames decode, or to the end.
  constexpr std::size_t kLongest = 64 * 1024;
  std::size_t n = 0;
  while (n < out.size() && n < kLongest && !frames_from(std::string_view(out).substr(n))) {
    auto c = static_cast<unsigned char>(out[n++]);
    if ((c < 0x20 && !(c >= '\t' && c <= '\r')) || c == 0x7f || c > 0xf4) return std::nullopt;
  }
  return shell_preamble_said(out, n);
}

PreparedAgent prepare_agent(const std::string& installed, bool no_agent) {
  PreparedAgent prepared;
  if (no_agent) return prepared;
  auto located = locate_agent(installed);
  if (!located) throw FatalError(located.error());
  prepared.location = std::move(*located);
  if (prepared.location.installed.empty()) {
    prepared.binary.reset(::open(prepared.location.binary.c_str(), O_RDONLY | O_CLOEXEC));
    if (!prepared.binary) throw FatalError("cannot read this pdx binary to deploy it");
  }
  return prepared;
}

std::string agent_replaced_warning(const std::vector<std::string>& labels) {
  if (labels.empty()) return "";
  return "pdx: warning: " + fold_names(labels) +
         ": the agent cached there was not as pdx left it (a symlink, another owner, write "
         "permission for others, or another size or SHA-256); uploaded it again\n";
}

namespace {

// "pdx: warning: HOSTS: TEXT(REASON)AFTER\n" for each reason, hosts with the same one folded, in
// the order reasons first came.
std::string folded_by_reason(const std::vector<std::pair<std::string, std::string>>& reasons,
                             const std::string& text, const std::string& after) {
  std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
  for (const auto& [label, reason] : reasons) {
    auto it = std::find_if(by_reason.begin(), by_reason.end(),
                           [&](auto& r) { return r.first == reason; });
    if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {reason, {}});
    it->second.push_back(label);
  }
  std::string lines;
  for (const auto& [reason, labels] : by_reason)
    lines +=
        "pdx: warning: " + fold_names(labels) + ": " + text + " (" + reason + ")" + after + "\n";
  return lines;
}

}  // namespace

std::string agent_fallback_warning(const std::vector<std::pair<std::string, std::string>>& reasons,
                                   const std::string& instead) {
  return folded_by_reason(reasons, "the agent cannot run there", "; " + instead + " (slower)");
}

std::string agent_static_warning(const std::vector<std::pair<std::string, std::string>>& reasons) {
  return folded_by_reason(reasons, "pdx cannot run there",
                          "; its static build was uploaded instead, and runs there from now on");
}

namespace {

// An upload's stdin: nothing until its shell says it reads (the `u` upload_command writes before
// its gzip -dc or cat, or anything a startup file prints first), so that the binary waits here
// rather than in sshd's buffers. sshd holding it for a shell still making its directory spent
// about 0.25 s of a host's CPU moving it about (8 hosts uploading 2 MB each over 200 Mbit/s
// links: 4.2-4.8 s of the machine's CPU with the reader 1 s late, 1.9-2.9 s without).
boost::asio::awaitable<ReplySink::Reply> upload_through_gate(Session& session, const Job& job,
                                                             const std::string& command,
                                                             InputSource& binary,
                                                             StopSignal& stop) {
  struct UploadReply final : JobIo {
    explicit UploadReply(InputSource& file) : binary(file) {}
    void output(std::size_t index, Stream stream, std::string_view bytes) override {
      if (stream == Stream::out && !bytes.empty()) gate.open(binary);
      sink.output(index, stream, bytes);
    }
    InputSource& binary;
    GateInput gate;
    ReplySink sink;
  } reply(binary);
  ExecRequest request{command, job.env, job.command_timeout, &reply.gate};
  reply.sink.reply().result = co_await session.exec(request, reply, stop);
  co_return std::move(reply.sink.reply());
}

}  // namespace

boost::asio::awaitable<ReplySink::Reply> upload_agent(Session& session, const Job& job,
                                                      const AgentLocation& agent, int binary,
                                                      StopSignal& stop) {
  Fd own;  // the static build's, opened here
  if (binary < 0) {
    own.reset(::open(agent.binary.c_str(), O_RDONLY | O_CLOEXEC));
    binary = own.get();
  }
  if (!agent.gzipped.empty()) {
    Fd gzipped(::open(agent.gzipped.c_str(), O_RDONLY | O_CLOEXEC));
    if (gzipped) {
      FileInput input(gzipped.get());
      const std::string command = upload_command(agent, true);  // not a temporary: GCC 12
      ReplySink::Reply reply = co_await upload_through_gate(session, job, command, input, stop);
      if (reply.result.failure != Failure::none || reply.result.exit_status != kNoGzip ||
          !reply.result.signal.empty())
        co_return reply;
    }
  }
  FileInput input(binary);
  const std::string command = upload_command(agent, false);
  ReplySink::Reply reply = co_await upload_through_gate(session, job, command, input, stop);
  co_return reply;
}

namespace {

// Whether the reply asks for the static build: the host cannot run the binary (the dynamic
// loader's exit 127, nothing on stdout) or its copy of the static build fails its checks.
bool static_needed(const AgentLocation& agent, const ReplySink::Reply& reply) {
  return agent.fallback && reply.result.failure == Failure::none && reply.out.empty() &&
         reply.result.signal.empty() &&
         (reply.result.exit_status == 127 || reply.result.exit_status == kStaticUntrusted);
}

}  // namespace

bool agent_upload_asked(const AgentLocation& agent, const ReplySink::Reply& reply) {
  return agent.installed.empty() && reply.result.failure == Failure::none && reply.out.empty() &&
         reply.result.signal.empty() &&
         (agent_upload_needed(reply.result.exit_status) || static_needed(agent, reply));
}

boost::asio::awaitable<AgentStarted> start_agent(
    Session& session, const Job& job, const AgentLocation& agent, int binary,
    std::function<boost::asio::awaitable<ReplySink::Reply>()> run, StopSignal& stop) {
  ReplySink::Reply first = co_await run();  // not in a braced initialiser: GCC 12
  AgentStarted started =
      co_await deploy_agent(std::move(first), session, job, agent, binary, std::move(run), stop);
  co_return started;
}

boost::asio::awaitable<AgentStarted> deploy_agent(
    ReplySink::Reply first, Session& session, const Job& job, const AgentLocation& agent,
    int binary, std::function<boost::asio::awaitable<ReplySink::Reply>()> run, StopSignal& stop) {
  AgentStarted started;
  started.reply = std::move(first);
  if (started.reply.result.failure != Failure::none) co_return started;
  if (auto preamble = shell_preamble(started.reply)) {
    started.error = std::move(*preamble);
    co_return started;
  }
  if (!agent.installed.empty()) {
    started.cannot_run = agent_cannot_run(started.reply, false);
    co_return started;
  }
  bool deployed = false;
  // The binary, then the static build where the host cannot run it: each uploaded once at most.
  // A named array, not a braced list's temporary across co_await: GCC 12.
  const AgentLocation* const order[] = {&agent, agent.fallback.get()};
  for (const AgentLocation* sent : order) {
    const ReplySink::Reply& reply = started.reply;
    int status = reply.result.exit_status;
    if (sent == &agent ? !reply.result.signal.empty() || !agent_upload_needed(status)
                       : !static_needed(agent, reply))
      continue;
    if (status == kAgentUntrusted || status == kStaticUntrusted) started.replaced = true;
    if (status == 127) started.static_needed = host_said(reply);
    ReplySink::Reply upload =
        co_await upload_agent(session, job, *sent, sent == &agent ? binary : -1, stop);
    if (upload.result.failure != Failure::none) {
      started.reply = std::move(upload);
      co_return started;
    }
    if (upload.result.exit_status != 0 || !upload.result.signal.empty()) {
      started.cannot_run = "cannot install it: " + host_said(upload);
      started.replaced = false;
      started.static_needed.reset();
      co_return started;
    }
    deployed = true;
    started.reply = co_await run();
    if (started.reply.result.failure != Failure::none) co_return started;
  }
  started.cannot_run = agent_cannot_run(started.reply, deployed);
  co_return started;
}

}  // namespace pdx
