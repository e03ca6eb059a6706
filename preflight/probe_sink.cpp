#include "preflight/probe_sink.h"

#include <algorithm>

namespace pdx {

void ProbeSink::output(std::size_t index, Stream stream, std::string_view bytes) {
  if (index >= hosts_.size()) return;
  Host& h = hosts_[index];
  if (stream == Stream::err) {
    h.err.add(bytes);
    return;
  }
  if (!h.first_out && !bytes.empty()) h.first_out = std::chrono::system_clock::now();
  h.out.append(bytes.substr(0, kMaxOut - std::min(kMaxOut, h.out.size())));
}

}  // namespace pdx
