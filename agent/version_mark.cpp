#include "agent/version_mark.h"

namespace pdx {

namespace {

constexpr char kMark[] = "pdx agent of version " PDX_VERSION " of sources " PDX_AGENT_SOURCES;

}  // namespace

std::string_view agent_version_mark() {
  return {kMark, sizeof kMark};
}

}  // namespace pdx
