#include "agent/delta_protocol.h"

#include "agent/payload_fields.h"

#include <cstring>

namespace pdx {

namespace {

bool known_state(std::uint8_t s) {
  for (OldState k :
       {OldState::missing, OldState::same, OldState::changed, OldState::directory, OldState::other})
    if (static_cast<std::uint8_t>(k) == s) return true;
  return false;
}

constexpr char kCopy = 'C', kLiteral = 'L';
constexpr std::size_t kCopyBytes = 1 + 8 + 8, kLiteralHeader = 1 + 4;

}  // namespace

std::string encode(const SignatureRequest& m) {
  return PayloadWriter()
      .str(m.name)
      .u64(m.size)
      .i64(m.mtime_sec)
      .u8(m.want)
      .u8(static_cast<std::uint8_t>(m.kind))
      .u32(m.mode)
      .str(m.target)
      .u32(m.mtime_nsec)
      .take();
}

std::string encode(const SignatureReply& m) {
  PayloadWriter out;
  out.str(m.name).u8(static_cast<std::uint8_t>(m.state));
  if (m.state == OldState::changed) out.u64(m.size).u32(m.block);
  return out.take();
}

std::string encode(const DeltaHeader& m) {
  return PayloadWriter()
      .str(m.name)
      .u32(m.mode)
      .i64(m.mtime_sec)
      .u32(m.mtime_nsec)
      .u64(m.basis_size)
      .u32(m.block)
      .take();
}

std::string encode(const DeltaEnd& m) {
  return PayloadWriter().u64(m.size).raw(m.hash.data(), m.hash.size()).take();
}

std::string encode_blocks(const BlockSum* blocks, std::size_t count) {
  PayloadWriter out;
  for (std::size_t i = 0; i < count; ++i)
    out.u32(blocks[i].weak).raw(blocks[i].strong.data(), blocks[i].strong.size());
  return out.take();
}

Result<SignatureRequest> decode_signature_request(std::string_view payload) {
  PayloadReader in(payload, "signature request");
  SignatureRequest m;
  m.name = in.name();
  m.size = in.u64();
  m.mtime_sec = in.i64();
  std::uint8_t want = in.u8();
  if (want > 1) in.bad();
  m.want = want == 1;
  m.kind = in.one_of({EntryKind::file, EntryKind::directory, EntryKind::symlink});
  m.mode = in.mode();
  m.target = in.str(kMaxName);
  m.mtime_nsec = in.u32();
  if (m.mtime_nsec >= 1000000000u) in.bad();
  if ((m.kind == EntryKind::symlink) != !m.target.empty() ||
      (m.kind != EntryKind::file && m.want) || (!m.target.empty() && !check_target(m.target)))
    in.bad();
  TRY(in.end());
  return m;
}

Result<SignatureReply> decode_signature_reply(std::string_view payload) {
  PayloadReader in(payload, "signature reply");
  SignatureReply m;
  m.name = in.name();
  std::uint8_t state = in.u8();
  if (!known_state(state)) in.bad();
  m.state = static_cast<OldState>(state);
  if (in.ok() && m.state == OldState::changed) {
    m.size = in.u64();
    m.block = in.u32();
    if (m.block != block_length(m.size)) in.bad();
  }
  TRY(in.end());
  return m;
}

Result<DeltaHeader> decode_delta_header(std::string_view payload) {
  PayloadReader in(payload, "delta file");
  DeltaHeader m;
  m.name = in.name();
  m.mode = in.u32() & 07777;
  m.mtime_sec = in.i64();
  m.mtime_nsec = in.u32();
  m.basis_size = in.u64();
  m.block = in.u32();
  if (m.mtime_nsec >= 1000000000u || m.block < kMinBlock || m.block > kMaxBlock) in.bad();
  TRY(in.end());
  return m;
}

Result<DeltaEnd> decode_delta_end(std::string_view payload) {
  PayloadReader in(payload, "delta end");
  DeltaEnd m;
  m.size = in.u64();
  std::string_view h = in.bytes(m.hash.size());
  if (in.ok()) std::memcpy(m.hash.data(), h.data(), m.hash.size());
  TRY(in.end());
  return m;
}

Result<std::vector<OldFile>> parse_signatures(std::string_view reply,
                                              const std::vector<SignatureRequest>& asked) {
  FrameDecoder decoder;
  decoder.feed(reply);
  std::vector<OldFile> files;
  std::uint64_t blocks_due = 0;  // of the last changed file
  bool summary = false;
  for (;;) {
    auto frame = TRY(decoder.next());
    if (!frame) break;
    if (summary) return Error{"bytes after the summary"};
    switch (frame->type) {
      case FrameType::sig_reply: {
        if (blocks_due) return Error{"a signature cut short"};
        auto m = TRY(decode_signature_reply(frame->payload));
        if (files.size() == asked.size() || m.name != asked[files.size()].name)
          return Error{"a signature of a file not asked for"};
        OldFile& f = files.emplace_back();
        f.state = m.state;
        if (m.state == OldState::changed && asked[files.size() - 1].want) {
          f.signature = Signature{m.size, m.block, {}};
          blocks_due = block_count(m.size, m.block);
          if (blocks_due > reply.size() / kBlockSumBytes) return Error{"a signature cut short"};
          f.signature.blocks.reserve(static_cast<std::size_t>(blocks_due));
        }
        break;
      }
      case FrameType::sig_blocks: {
        const std::string& p = frame->payload;
        std::size_t n = p.size() / kBlockSumBytes;
        if (p.size() % kBlockSumBytes || n == 0 || n > blocks_due)
          return Error{"malformed signature blocks frame"};
        auto& blocks = files.back().signature.blocks;
        for (std::size_t i = 0; i < n; ++i) {
          PayloadReader in(std::string_view(p).substr(i * kBlockSumBytes, kBlockSumBytes),
                           "blocks");
          BlockSum b;
          b.weak = in.u32();
          std::memcpy(b.strong.data(), in.bytes(b.strong.size()).data(), b.strong.size());
          blocks.push_back(b);
        }
        blocks_due -= n;
        break;
      }
      case FrameType::summary:
        TRY(decode_summary(frame->payload));
        summary = true;
        break;
      default:
        return Error{"unexpected frame type " + std::to_string(int(frame->type))};
    }
  }
  if (!summary || decoder.partial() || blocks_due || files.size() != asked.size())
    return Error{"the reply ended early"};
  return files;
}

Result<void> OpsEncoder::room(std::size_t bytes) {
  if (payload_.size() + bytes > kDataChunk) TRY(finish());
  return {};
}

Result<void> OpsEncoder::copy(std::uint64_t first, std::uint64_t count) {
  TRY(room(kCopyBytes));
  payload_ += PayloadWriter().u8(kCopy).u64(first).u64(count).take();
  return {};
}

Result<void> OpsEncoder::literal(std::string_view bytes) {
  TRY(room(kLiteralHeader + bytes.size()));
  payload_ += PayloadWriter().u8(kLiteral).str(bytes).take();
  return {};
}

Result<void> OpsEncoder::finish() {
  if (payload_.empty()) return {};
  TRY(flush_(payload_));
  payload_.clear();
  return {};
}

Result<void> decode_ops(std::string_view payload, DeltaSink& sink) {
  PayloadReader in(payload, "delta ops");
  while (in.ok() && !in.empty()) {
    std::uint8_t op = in.u8();
    if (op == kCopy) {
      std::uint64_t first = in.u64(), count = in.u64();
      if (!in.ok()) break;
      TRY(sink.copy(first, count));
    } else if (op == kLiteral) {
      std::uint32_t n = in.u32();
      if (n == 0 || n > kMaxLiteral) in.bad();
      std::string_view bytes = in.bytes(n);
      if (!in.ok()) break;
      TRY(sink.literal(bytes));
    } else {
      in.bad();
    }
  }
  return in.end();
}

}  // namespace pdx
