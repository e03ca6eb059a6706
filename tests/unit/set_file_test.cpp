#include "archive/set_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/unit/scratch.h"

namespace pdx {

namespace {

SetFile two_parts() {
  SetFile set;
  set.id = random_pack_id();
  set.parts.push_back({"data.tar.xz.part-0", 1048576, std::string(32, 'a')});
  set.parts.push_back({"data tar xz.part-1", 12, "0123456789abcdef0123456789abcdef"});
  return set;
}

// The Error read_set_file gives for a file holding text; "" if it reads.
std::string read_error(const test::TempDir& dir, const std::string& text) {
  test::write_file(dir / "x-set", text);
  auto read = read_set_file(dir / "x-set");
  if (read) return "";
  EXPECT_EQ(read.error_kind(), ErrorKind::bad_input) << read.error();
  EXPECT_EQ(read.error().find(dir / "x-set"), 0u) << read.error();
  return read.error();
}

}  // namespace

TEST(SetFile, ReadsBackWhatItWrote) {
  test::TempDir dir;
  SetFile set = two_parts();
  std::string text = encode_set_file(set);
  EXPECT_EQ(text.substr(0, 13), "pdx-set 1\nid ");
  EXPECT_NE(text.find("\npart 12 0123456789abcdef0123456789abcdef data tar xz.part-1\nend 2\n"),
            std::string::npos)
      << text;
  test::write_file(dir / "x-set", text);
  auto read = read_set_file(dir / "x-set");
  ASSERT_TRUE(read.ok()) << read.error();
  EXPECT_EQ(read->id, set.id);
  ASSERT_EQ(read->parts.size(), 2u);
  EXPECT_EQ(read->parts[1].name, "data tar xz.part-1");  // a name with spaces
  EXPECT_EQ(read->parts[0].size, 1048576u);
  EXPECT_EQ(read->parts[0].xxh3, std::string(32, 'a'));
}

TEST(SetFile, MalformedOrForeignFilesAreOneLineErrors) {
  test::TempDir dir;
  std::string good = encode_set_file(two_parts());
  std::string head = good.substr(0, good.find("part "));  // magic and id lines
  std::string part = "part 5 " + std::string(32, 'b') + " x.part-0\n";
  EXPECT_EQ(read_error(dir, head + part + "end 1\n"), "");
  EXPECT_NE(read_error(dir, "").find("not a pdx set file"), std::string::npos);
  EXPECT_NE(read_error(dir, "\x1f\x8b binary").find("not a pdx set file"), std::string::npos);
  EXPECT_NE(read_error(dir, "pdx-set 1\nid 12\n" + part + "end 1\n").find(":2: no pack id"),
            std::string::npos);
  EXPECT_NE(read_error(dir, head + part).find("cut short"), std::string::npos);
  EXPECT_NE(read_error(dir, head + part + "end 2\n").find(":4: the part count differs"),
            std::string::npos);
  EXPECT_NE(read_error(dir, head + "end 0\n").find("no parts"), std::string::npos);
  EXPECT_NE(read_error(dir, head + part + "end 1\npart\n").find(":5: a line after the end"),
            std::string::npos);
  for (const std::string& bad : std::vector<std::string>{
           "part -5 " + std::string(32, 'b') + " x.part-0",
           "part 99999999999999999999999 " + std::string(32, 'b') + " x.part-0",
           "part 5 " + std::string(31, 'b') + " x.part-0",
           "part 5 " + std::string(32, 'B') + " x.part-0",
           "part 5 " + std::string(32, 'b') + " ../x.part-0",
           "part 5 " + std::string(32, 'b') + " ", "part 5", "size 5"}) {
    EXPECT_NE(read_error(dir, head + bad + "\nend 1\n").find(":3: not a line 'part SIZE"),
              std::string::npos)
        << bad;
  }
  // Too large to be a set file: refused from its size, before it is read.
  test::write_file(dir / "big-set", "");
  std::filesystem::resize_file(dir / "big-set", std::uintmax_t{17} << 20);
  auto big = read_set_file(dir / "big-set");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().find("over 16 MiB"), std::string::npos) << big.error();
  EXPECT_EQ(big.error_kind(), ErrorKind::bad_input);
  auto missing = read_set_file(dir / "none-set");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().find(dir / "none-set"), 0u);
}

}  // namespace pdx
