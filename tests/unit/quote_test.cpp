#include "base/quote.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace pdx {
namespace {

// What /bin/sh makes of `printf %s <quoted>`: the round trip through a real shell.
std::string through_shell(const std::string& s) {
  std::string command = "printf %s " + shell_quote(s);
  FILE* p = popen(command.c_str(), "r");
  std::string out;
  char buf[256];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

TEST(ShellQuote, PlainWordsStayReadable) {
  EXPECT_EQ(shell_quote("node01"), "node01");
  EXPECT_EQ(shell_quote("a=b,c:d/e.f@g%h+i-j_k"), "a=b,c:d/e.f@g%h+i-j_k");
}

TEST(ShellQuote, EmptyBecomesTwoQuotes) {
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(ShellQuote, SingleQuoteIsClosedEscapedReopened) {
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

TEST(ShellQuote, HostileStringsSurviveARealShell) {
  for (std::string s :
       {"$(touch /tmp/pdx-pwned)", "`id`", "a'b\"c", "line1\nline2", "; rm -rf /",
        "$HOME ${PATH} \\n", "*", "'''", "tab\there", "~root", "!event", "\xe2\x9c\x93 utf8"}) {
    EXPECT_EQ(through_shell(s), s) << s;
  }
}

}  // namespace
}  // namespace pdx
