#include "transport/ssh_channel.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

constexpr const char* kDefaults =
    "curve25519-sha256,ecdh-sha2-nistp256,diffie-hellman-group14-sha1";

TEST(ExecLine, ShortCommandsAreTheRequestLongOnesGoAheadOfStdin) {
  auto line = exec_line("echo short");
  EXPECT_EQ(line.request, "echo short");
  EXPECT_EQ(line.ahead_of_stdin, "");
  std::string long_command = "echo " + std::string(kMaxExecCommand, 'x');
  line = exec_line(long_command);
  EXPECT_EQ(line.request, "eval \"$(head -c " + std::to_string(long_command.size()) + ")\"");
  EXPECT_EQ(line.ahead_of_stdin, long_command);
}

}  // namespace
}  // namespace pdx
