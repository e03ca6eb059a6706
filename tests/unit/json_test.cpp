#include "core/json.h"

#include <gtest/gtest.h>

namespace pdx {
namespace {

TEST(JsonString, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(json_string("a\"b\\c\nd\te\x01"), "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
}

TEST(JsonString, KeepsValidUtf8) {
  EXPECT_EQ(json_string("caf\xc3\xa9 \xe2\x9c\x93"), "\"caf\xc3\xa9 \xe2\x9c\x93\"");
}

TEST(JsonString, ReplacesInvalidBytes) {
  EXPECT_EQ(json_string("a\xff"
                        "b\xc3"),
            "\"a\xef\xbf\xbd"
            "b\xef\xbf\xbd\"");
  EXPECT_EQ(json_string("\xf8\x80\x80"), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
  EXPECT_EQ(json_string("\xed\xa0\x80"), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");  // surrogate
}

// Every way of cutting a string in two pieces escapes as the whole does, even inside a UTF-8
// sequence, and an incomplete sequence at the very end still becomes U+FFFD.
TEST(JsonEscaper, PiecesEscapeAsTheWhole) {
  for (std::string s :
       {"caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80\"x", "a\xe2\x9c", "\xf0\x9f", "\xe2(b\xff\n"}) {
    for (std::size_t cut = 0; cut <= s.size(); ++cut) {
      JsonEscaper escaper;
      std::string out = "\"";
      escaper.escape(std::string_view(s).substr(0, cut), out);
      escaper.escape(std::string_view(s).substr(cut), out);
      escaper.finish(out);
      EXPECT_EQ(out + "\"", json_string(s)) << "cut at " << cut << " of " << s;
    }
  }
}

}  // namespace
}  // namespace pdx
