#pragma once
// The frames of `pdx sync` (pdx(1), DISTRIBUTION), on top of agent/agent_protocol.h's:
//
//   to `pdx agent --signatures=DEST`:  sig_request (SignatureRequest)* done
//   from it:                           per request, in order: sig_reply (SignatureReply), and
//                                      for a changed file its blocks: sig_blocks*; then summary
//   to `pdx agent --patch=DEST`:       per file: delta_file (DeltaHeader) delta_ops* delta_end
//                                      (DeltaEnd); then done
//   from it:                           written | failed per file, then summary (as --receive)
//
//   sig_blocks = (weak u32, strong 16 bytes)*, at most kBlocksPerFrame
//   delta_ops  = ('C' first u64 count u64 | 'L' length u32 bytes)*: copy old blocks, or bytes
//
// Frames from a host are untrusted: parse_signatures checks every count and length against
// what was asked (a block length other than block_length(size), a block too many or too few,
// a name not asked for are Errors for the host).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/agent_protocol.h"
#include "agent/delta.h"
#include "base/result.h"

namespace pdx {

inline constexpr std::size_t kBlockSumBytes = 20;
inline constexpr std::size_t kBlocksPerFrame = kDataChunk / kBlockSumBytes;

struct SignatureRequest {
  std::string name;  // under DEST; "" for DEST itself
  std::uint64_t size = 0;
  std::int64_t mtime_sec = 0;
  bool want = true;  // false (--dry-run): say how the old file stands, send no blocks
  // What NAME is to be: a file, or (never wanted) a directory of `mode` and `mtime_sec`, or a
  // symlink to `target`, only ever same or not.
  EntryKind kind = EntryKind::file;
  std::uint32_t mode = 0;
  std::string target{};
  std::uint32_t mtime_nsec = 0;  // of mtime_sec's second
  bool operator==(const SignatureRequest&) const = default;
};

/// How a host's old file stands against the new one.
enum class OldState : std::uint8_t {
  missing = 'n',
  same = '=',     // size and mtime (seconds) equal, as push compares; a directory of that mode and
                  // mtime, a symlink to that target
  changed = 'c',  // its blocks follow (when asked for)
  directory = 'd',
  other = 'o',  // a symlink, a device, unreadable: sent whole
};

struct SignatureReply {
  std::string name;
  OldState state = OldState::missing;
  std::uint64_t size = 0;   // changed: of the old file
  std::uint32_t block = 0;  // changed: block_length(size)
};

struct DeltaHeader {
  std::string name;
  std::uint32_t mode = 0644;
  std::int64_t mtime_sec = 0;
  std::uint32_t mtime_nsec = 0;
  std::uint64_t basis_size = 0;  // the old file must still be this long
  std::uint32_t block = 0;       // its signature's block length
};

struct DeltaEnd {
  std::uint64_t size = 0;  // of the new file
  StrongHash hash{};       // its XXH3-128
};

std::string encode(const SignatureRequest& m);
std::string encode(const SignatureReply& m);
std::string encode(const DeltaHeader& m);
std::string encode(const DeltaEnd& m);
std::string encode_blocks(const BlockSum* blocks, std::size_t count);

Result<SignatureRequest> decode_signature_request(std::string_view payload);
Result<SignatureReply> decode_signature_reply(std::string_view payload);
Result<DeltaHeader> decode_delta_header(std::string_view payload);
Result<DeltaEnd> decode_delta_end(std::string_view payload);

/// What a host said of each file asked for, in the order asked: its state and, when changed and
/// asked for, its signature. An Error for anything else (see above).
struct OldFile {
  OldState state = OldState::missing;
  Signature signature;  // changed and wanted only
};
Result<std::vector<OldFile>> parse_signatures(std::string_view reply,
                                              const std::vector<SignatureRequest>& asked);

/// Ops packed into delta_ops payloads of at most kDataChunk bytes (and a literal's header).
class OpsEncoder final : public DeltaSink {
 public:
  using Flush = std::function<Result<void>(std::string_view payload)>;
  explicit OpsEncoder(Flush flush) : flush_(std::move(flush)) {}
  Result<void> copy(std::uint64_t first, std::uint64_t count) override;
  Result<void> literal(std::string_view bytes) override;
  /// Sends what is held.
  Result<void> finish();

 private:
  Result<void> room(std::size_t bytes);
  Flush flush_;
  std::string payload_;
};

/// Applies a delta_ops payload's ops to `sink`, in order. An Error (ErrorKind::bad_input) for a
/// malformed payload: an unknown op, a truncated field, a literal over kMaxLiteral or empty.
Result<void> decode_ops(std::string_view payload, DeltaSink& sink);

}  // namespace pdx
