#include "agent/extract_record.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "tests/unit/scratch.h"

namespace pdx {
namespace {

namespace fs = std::filesystem;

// DIR/out holding a/one ("1"), a/two ("22") and the symlink a/l -> one, recorded as set "s1".
std::string recorded(const test::TempDir& dir) {
  test::write_file(dir / "out/a/one", "1");
  test::write_file(dir / "out/a/two", "22");
  fs::create_symlink("one", dir / "out/a/l");
  EXPECT_TRUE(record_extracted(dir / "out", "s1", {"a", "a/one", "a/two", "a/l"}).ok());
  return dir / "out";
}

TEST(ExtractRecord, RoundTrips) {
  ExtractRecord record{"pack-00ff-12", "/x/y", {"a", "a/b c"}, std::string(32, '7')};
  auto back = decode_record(encode_record(record));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->set, record.set);
  EXPECT_EQ(back->dest, record.dest);
  EXPECT_EQ(back->names, record.names);
  EXPECT_EQ(back->digest, record.digest);
}

TEST(ExtractRecord, RefusesWhatItDidNotWrite) {
  std::string good = encode_record({"s1", "/x", {"a"}, std::string(32, '7')});
  EXPECT_FALSE(decode_record("").ok());
  EXPECT_FALSE(decode_record(good.substr(0, good.size() - 1)).ok());
  EXPECT_FALSE(decode_record(good + "x").ok());
  EXPECT_FALSE(decode_record(encode_record({"s1", "/x", {"../a"}, std::string(32, '7')})).ok());
  EXPECT_FALSE(decode_record(encode_record({"S 1", "/x", {"a"}, std::string(32, '7')})).ok());
  EXPECT_FALSE(decode_record(encode_record({"s1", "x", {"a"}, std::string(32, '7')})).ok());
}

TEST(ExtractRecord, SetIds) {
  EXPECT_TRUE(valid_set_id("pack-0123abcd-99"));
  EXPECT_FALSE(valid_set_id(""));
  EXPECT_FALSE(valid_set_id("a b"));
  EXPECT_FALSE(valid_set_id("A"));
  EXPECT_FALSE(valid_set_id(std::string(129, 'a')));
}

TEST(ExtractRecord, HoldsTheSetWhileNothingChanged) {
  test::TempDir dir;
  test::ScratchHome home(dir);
  std::string dest = recorded(dir);
  EXPECT_TRUE(holds_extracted(dest, "s1"));
  EXPECT_TRUE(holds_extracted(dest + "/", "s1"));  // one DEST, with or without its '/'
  EXPECT_FALSE(holds_extracted(dest, "s2"));       // another set
  test::write_file(dir / "out/a/three", "3");      // something else put beside: still whole
  EXPECT_TRUE(holds_extracted(dest, "s1"));
  EXPECT_FALSE(holds_extracted(dir / "other", "s1"));
}

TEST(ExtractRecord, AChangedEntryIsNotTheSet) {
  test::TempDir dir;
  test::ScratchHome home(dir);
  std::string dest = recorded(dir);
  struct stat before;
  ASSERT_EQ(::stat((dir / "out/a/one").c_str(), &before), 0);
  test::write_file(dir / "out/a/one", "9");  // same size
  struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, (dir / "out/a/one").c_str(), times, 0), 0);  // mtime put back
  EXPECT_FALSE(holds_extracted(dest, "s1"));
}

TEST(ExtractRecord, AMissingOrReplacedEntryIsNotTheSet) {
  test::TempDir dir;
  test::ScratchHome home(dir);
  std::string dest = recorded(dir);
  fs::remove(dir / "out/a/two");
  EXPECT_FALSE(holds_extracted(dest, "s1"));
  test::TempDir again;
  test::ScratchHome home2(again);
  dest = recorded(again);
  fs::remove(again / "out/a/l");
  fs::create_symlink("two", again / "out/a/l");  // a symlink pointing elsewhere
  EXPECT_FALSE(holds_extracted(dest, "s1"));
  test::TempDir third;
  test::ScratchHome home3(third);
  dest = recorded(third);
  fs::permissions(third / "out/a", fs::perms::owner_all);  // a directory's mode changed
  EXPECT_FALSE(holds_extracted(dest, "s1"));
}

TEST(ExtractRecord, ForgottenOrDamagedRecordHoldsNothing) {
  test::TempDir dir;
  test::ScratchHome home(dir);
  std::string dest = recorded(dir);
  std::string path = extract_record_path(dest);
  ASSERT_TRUE(fs::exists(path));
  std::string bytes = test::read_file(path);
  test::write_file(path, bytes.substr(0, bytes.size() / 2));
  EXPECT_FALSE(holds_extracted(dest, "s1"));
  ASSERT_TRUE(record_extracted(dest, "s1", {"a", "a/one", "a/two", "a/l"}).ok());
  EXPECT_TRUE(holds_extracted(dest, "s1"));
  forget_extracted(dest + "/");
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(holds_extracted(dest, "s1"));
}

}  // namespace
}  // namespace pdx
