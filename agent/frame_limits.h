#pragma once
// What one frame of the agent protocol (agent/agent_protocol.h) may hold: its sizes, and the names
// and symlink targets it may carry. Below the protocol, so that the payload fields
// (agent/payload_fields.h) and the pipes widened for it (agent/wide_pipe.h) need not include it.
#include <cstddef>
#include <string_view>

#include "base/result.h"

namespace pdx {

inline constexpr std::size_t kMaxPayload = 1024 * 1024 + 64 * 1024;  // a data chunk and headroom
inline constexpr std::size_t kDataChunk = 1024 * 1024;               // bytes per data frame
inline constexpr std::size_t kMaxName = 4096;                        // PATH_MAX
inline constexpr std::size_t kFrameHeaderBytes = 5;                  // type byte + u32 length

/// A relative name under the destination, as sent in frames: "" (the destination itself), or
/// components joined by '/', none empty, ".", ".."; not absolute; no NUL; at most kMaxName bytes.
Result<void> check_name(std::string_view name);

/// A symlink's target as sent in frames, kept verbatim (it may point anywhere: the agent never
/// follows it): not empty, no NUL, at most kMaxName bytes.
Result<void> check_target(std::string_view target);

}  // namespace pdx
