#include "archive/names.h"

#include <gtest/gtest.h>
#include <langinfo.h>

#include <string>

namespace pdx {

TEST(UseUtf8Names, LeavesAUtf8Codeset) {
  use_utf8_names();
  EXPECT_EQ(std::string(nl_langinfo(CODESET)), "UTF-8");
}

}  // namespace pdx
