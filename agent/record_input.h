#pragma once
// A stream that comes in records read as bytes: what a relaying host's receive
// (agent/agent_relay.cpp) pulls its frames from, with no pipe between: on a host that forwards
// to nobody (a star's, a chain's last), straight off the link (agent/relay_link.h), every record
// taken into one buffer kept from one to the next; on a host that forwards, the chunks of its
// RelayQueue, as they are.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "agent/agent_protocol.h"
#include "base/result.h"

namespace pdx {

class RecordInput final : public FrameInput {
 public:
  /// The next record's bytes, at the start of `buffer` (grown as needed and handed back at the
  /// next call: one allocation for the stream) or in the caller's own memory, valid until the
  /// next call; "" at the stream's end; an Error when it broke off.
  using Next = std::function<Result<std::string_view>(std::string& buffer)>;

  explicit RecordInput(Next next) : next_(std::move(next)) {}
  /// At most `size` bytes of the stream; 0 at its end. An Error when it broke off, never a
  /// shorter stream, and the same Error for every read after.
  Result<std::size_t> read(char* to, std::size_t size) override;
  /// The rest of the stream, taken and dropped (what a consumer that stopped early left, so that
  /// upstream is not held up): an Error when it broke off before its end.
  Result<void> drain();

 private:
  Result<bool> fill();  // a record held: false at the end

  Next next_;
  std::string buffer_;
  std::string_view held_;  // of the record in buffer_, not read yet
  bool ended_ = false;
  std::optional<Error> broke_;
};

}  // namespace pdx
