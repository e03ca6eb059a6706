#pragma once
// pull's receiving end for one host: `pdx unpack --no-same-owner -C DIR -` in a child process, fed
// the host's tar stream through a pipe.
//
// A process, not a thread running archive/unpack.h: unpack changes the working directory for
// the call (its safety checks work on relative names), which threads unpacking several hosts'
// streams at once would share. A process per host also keeps what a hostile stream might do to
// the archive reader away from pdx itself. Writing blocks while the child is behind: that holds
// back the host's channel too (bounded memory).
#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "base/fd.h"
#include "base/result.h"

namespace pdx {

class UnpackProcess {
 public:
  /// Starts `unpacker... -C directory -` (unpacker: the pdx binary and "unpack"), stdout to
  /// /dev/null, stderr kept for finish().
  static Result<UnpackProcess> start(const std::vector<std::string>& unpacker,
                                     const std::string& directory);
  UnpackProcess(UnpackProcess&& other) noexcept;
  UnpackProcess& operator=(UnpackProcess&&) = delete;
  /// Ends the input and waits for the child, as finish() does.
  ~UnpackProcess();

  /// Hands bytes of the stream to the child (SIGPIPE ignored, as core/executor has it). An Error
  /// once the child stopped reading (it refused or failed on something: finish() says what);
  /// nothing more is written then.
  Result<void> write(std::string_view bytes);
  /// Ends the input and waits for the child. An Error with the child's own message, without
  /// its "pdx: error: " and the "-: " that names its input.
  Result<void> finish();

 private:
  UnpackProcess(pid_t pid, Fd input, Fd errors);

  pid_t pid_ = -1;
  Fd input_;
  Fd errors_;  // the child's stderr, an unnamed in-memory file
};

}  // namespace pdx
