#pragma once
// One host's receiving end of a pull: the tar stream, as it arrives over ssh (its tar's stdout)
// or over a direct link (agent/agent_send.h), fed to the host's UnpackProcess, started once the
// first bytes look like tar. The one path into unpack for both.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "distribute/pull/unpack_process.h"

namespace pdx {

class PullReceiver {
 public:
  /// Unpacks into `directory` with `unpacker` (the pdx binary and "unpack").
  PullReceiver(std::vector<std::string> unpacker, std::string directory)
      : unpacker_(std::move(unpacker)), directory_(std::move(directory)) {}

  /// The next bytes of the stream: held while they cannot tell whether the host's shell wrote
  /// before its tar, then fed to unpack. Nothing more is fed once something failed. Blocks while
  /// unpack is behind (bounded memory).
  void take(std::string_view bytes);
  /// The stream ended whole: what is held fed, unpack's input ended and its end waited for.
  void end();
  /// The stream broke off: unpack's input ended, its end waited for, what it said of the cut
  /// stream left unsaid (the break is the host's error).
  void abandon();

  /// The first failure: text from the host's shell before tar, unpack not started, or what
  /// unpack refused.
  const std::optional<Error>& failed() const { return failed_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  void feed(std::string_view bytes);

  const std::vector<std::string> unpacker_;
  const std::string directory_;
  std::string head_;                     // the stream's first bytes, until they look like tar
  std::optional<UnpackProcess> unpack_;  // started once they do
  std::optional<Error> failed_;
  std::uint64_t bytes_ = 0;
};

}  // namespace pdx
