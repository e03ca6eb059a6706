#include "distribute/reply_sink.h"

#include <algorithm>

#include "distribute/host_outcome.h"

namespace pdx {

void keep_stderr_tail(std::string& err, std::string_view bytes) {
  err.append(bytes);
  if (err.size() > ReplySink::kMaxStderr) err.erase(0, err.size() - ReplySink::kMaxStderr);
}

void ReplySink::output(std::size_t, Stream stream, std::string_view bytes) {
  Reply& r = reply_;
  if (stream == Stream::err) return keep_stderr_tail(r.err, bytes);
  if (r.out.size() + bytes.size() > limit_) {
    r.overflow = true;
    return;
  }
  r.out.append(bytes);
}

boost::asio::awaitable<ReplySink::Reply> run_command(Session& session, const Job& job,
                                                     const std::string& command, InputSource* input,
                                                     StopSignal& stop, std::size_t limit) {
  ReplySink sink(limit);
  ExecRequest request{command, job.env, job.command_timeout, input};
  sink.reply().result = co_await session.exec(request, sink, stop);
  co_return std::move(sink.reply());
}

std::string last_line(const std::string& err) {
  std::string_view text = err;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.remove_suffix(1);
  auto newline = text.rfind('\n');
  std::string line(newline == std::string_view::npos ? text : text.substr(newline + 1));
  std::replace_if(
      line.begin(), line.end(),
      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, '?');
  return line;
}

std::string host_said(const ReplySink::Reply& reply) {
  std::string line = last_line(reply.err);
  if (line.starts_with("pdx: error: ")) line.erase(0, 12);
  if (!line.empty()) return line;
  return reply.result.signal.empty() ? "exit " + std::to_string(reply.result.exit_status)
                                     : "killed by signal " + reply.result.signal;
}

std::string shell_preamble_said(std::string_view out, std::size_t n) {
  constexpr std::size_t kShown = 40;
  std::string text(out.substr(0, std::min(n, kShown)));
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  if (n > kShown) text += "...";
  return "the host's shell writes " + std::to_string(n) + " byte" + (n == 1 ? "" : "s") +
         " before the command runs: '" + text + "' (a startup file printing to stdout?)";
}

Receipt read_receipt(const ReplySink::Reply& reply) {
  Receipt receipt;
  FrameDecoder decoder;
  decoder.feed(reply.out);
  bool summary = false;
  for (;;) {
    auto frame = decoder.next();
    Result<void> ok;
    if (!frame)
      ok = Error{frame.error()};
    else if (!*frame)
      break;
    else if (summary)
      ok = Error{"bytes after the summary"};
    else if ((*frame)->type == FrameType::written) {
      auto w = decode_written((*frame)->payload);
      if (!w) ok = Error{w.error()};
    } else if ((*frame)->type == FrameType::failed) {
      auto f = decode_failed((*frame)->payload);
      if (f)
        receipt.failed.push_back(std::move(*f));
      else
        ok = Error{f.error()};
    } else if ((*frame)->type == FrameType::note) {
      std::string note = printable((*frame)->payload.substr(0, 1024));
      if (receipt.notes.size() < 16) receipt.notes.push_back(std::move(note));
    } else if ((*frame)->type == FrameType::summary) {
      auto s = decode_summary((*frame)->payload);
      if (s)
        receipt.summary = *s;
      else
        ok = Error{s.error()};
      summary = true;
    } else {
      ok = Error{"unexpected frame type " + std::to_string(int((*frame)->type))};
    }
    if (!ok) {
      receipt.error = "malformed reply from the agent: " + ok.error();
      return receipt;
    }
  }
  if (!summary || decoder.partial())
    receipt.error = reply.overflow ? "the agent's reply is over its limit" : host_said(reply);
  return receipt;
}

Summary take_receipt(const ReplySink::Reply& reply, std::string& error, std::vector<Failed>& failed,
                     std::vector<std::string>* notes) {
  Receipt receipt = read_receipt(reply);
  if (notes) *notes = std::move(receipt.notes);
  for (auto& f : receipt.failed) failed.push_back(std::move(f));
  if (!receipt.error.empty()) error = std::move(receipt.error);
  return receipt.summary;
}

}  // namespace pdx
