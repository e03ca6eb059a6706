#pragma once
// Where one agent command on a host (an exec of its session) writes: its stdout (the agent's
// reply frames) and the end of its stderr (what a shell or a failed agent said) kept in memory,
// bounded, to be decoded once the command is done. Nothing is printed.
#include "base/awaitable.h"

#include <boost/asio/awaitable.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "agent/agent_protocol.h"
#include "transport/transport.h"

namespace pdx {

class ReplySink final : public JobIo {
 public:
  static constexpr std::size_t kMaxReply = 64 * 1024 * 1024;  // a listing of ~500k files
  static constexpr std::size_t kMaxStderr = 4096;             // the last bytes kept

  struct Reply {
    std::string out;
    std::string err;
    bool overflow = false;  // stdout went past the limit: the rest was dropped
    HostResult result;      // the caller's to set, from the exec
  };

  /// Keeps at most `limit` bytes of stdout (more than kMaxReply: replies to several requests).
  explicit ReplySink(std::size_t limit = kMaxReply) : limit_(limit) {}

  /// The command's output (from its host's strand; the job index is that host's).
  void output(std::size_t index, Stream stream, std::string_view bytes) override;
  Reply& reply() { return reply_; }

 private:
  std::size_t limit_;
  Reply reply_;
};

/// Appends what a host's command wrote to its stderr to `err`, keeping the last
/// ReplySink::kMaxStderr bytes.
void keep_stderr_tail(std::string& err, std::string_view bytes);

/// Feeds `bytes` to `decoder` and hands each whole frame to `take` (Result<void>(const Frame&)),
/// as an agent's reply comes; the first Error (a malformed frame, or one `take` refused) ends it.
template <class Take>
Result<void> take_frames(FrameDecoder& decoder, std::string_view bytes, Take&& take) {
  decoder.feed(bytes);
  for (;;) {
    auto frame = decoder.next();
    if (!frame) return Error{frame.error()};
    if (!*frame) return {};
    if (auto taken = take(**frame); !taken) return taken;
  }
}

/// Runs one agent command on `session` (stdin from `input`, or none) into a ReplySink of its
/// own (of `limit`); its reply, the exec's result in it.
boost::asio::awaitable<ReplySink::Reply> run_command(Session& session, const Job& job,
                                                     const std::string& command, InputSource* input,
                                                     StopSignal& stop,
                                                     std::size_t limit = ReplySink::kMaxReply);

/// The last non-empty line of `err`, control characters replaced: what to show of a host's
/// stderr in a one-line failure.
std::string last_line(const std::string& err);

/// What a host said of a command that failed, in one line: the last line of its stderr (without
/// pdx's own "pdx: error: "), else its exit status or signal.
std::string host_said(const ReplySink::Reply& reply);

/// "the host's shell writes N bytes before the command runs: 'TEXT'" (TEXT: the first of
/// `out`'s N bytes, printable, cut short): a startup file printing to stdout.
std::string shell_preamble_said(std::string_view out, std::size_t n);

/// What a receiving (or patching) agent replied: the files that failed, then its summary.
struct Receipt {
  std::vector<Failed> failed;
  std::vector<std::string> notes;  // what the agent did unasked (printable, at most 1 KiB each)
  Summary summary;
  std::string error;  // "" when whole; else a malformed reply, or what the host said
};
Receipt read_receipt(const ReplySink::Reply& reply);
/// read_receipt's failures added to `failed`, its error (if any) into `error`, its notes into
/// `*notes` when given; its summary.
Summary take_receipt(const ReplySink::Reply& reply, std::string& error, std::vector<Failed>& failed,
                     std::vector<std::string>* notes = nullptr);

}  // namespace pdx
