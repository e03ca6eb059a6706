#pragma once
// A command's reply as a ReplySink holds it once the host's exec ended, made up for the tests
// that read one (how agent_start and posix_push take what a host said).
#include <string>
#include <utility>

#include "distribute/reply_sink.h"

namespace pdx::test {

inline ReplySink::Reply reply(int status, std::string out, std::string err = "") {
  ReplySink::Reply r;
  r.result.exit_status = status;
  r.out = std::move(out);
  r.err = std::move(err);
  return r;
}

}  // namespace pdx::test
