#include "archive/unpack.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "archive/byte_sink.h"
#include "archive/pack.h"
#include "tests/unit/scratch.h"

namespace pdx {

TEST(SafeEntryName, StripsAndRefuses) {
  EXPECT_EQ(*safe_entry_name("a/b/c", 0), "a/b/c");
  EXPECT_EQ(*safe_entry_name("./a//b/", 0), "a/b");
  EXPECT_EQ(*safe_entry_name("a/b/c", 1), "b/c");
  EXPECT_EQ(*safe_entry_name("a/b/c", 3), "");
  EXPECT_EQ(*safe_entry_name("./", 0), "");
  EXPECT_FALSE(safe_entry_name("/etc/passwd", 0).ok());
  EXPECT_FALSE(safe_entry_name("a/../../x", 0).ok());
  EXPECT_FALSE(safe_entry_name("..", 1).ok());
  EXPECT_FALSE(safe_entry_name("", 0).ok());
  EXPECT_TRUE(safe_entry_name("a..b/..c", 0).ok());
}

TEST(Unpack, RoundTripKeepsModesAndTimes) {
  test::TempDir dir;
  test::write_file(dir / "src/sub/f", "data");
  ::chmod((dir / "src/sub/f").c_str(), 0640);
  std::filesystem::last_write_time(
      dir / "src/sub/f", std::filesystem::file_time_type(std::chrono::hours(24 * 365 * 40)));
  PackOptions pack_options;
  pack_options.sources = {"src"};
  pack_options.format = Format::tar_zst;
  auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  auto sink = open_output({"a.tar.zst", std::nullopt, 1, Overwrite::no});
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE(pack(pack_options, **sink).ok());
  std::filesystem::current_path(cwd);

  UnpackOptions options;
  options.parts = {dir / "a.tar.zst"};
  options.directory = dir / "out";
  auto stats = unpack(options);
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(stats->files, 1u);
  EXPECT_EQ(std::filesystem::current_path(), cwd);  // the caller's directory is back
  EXPECT_EQ(test::read_file(dir / "out/src/sub/f"), "data");
  struct stat st;
  ASSERT_EQ(::stat((dir / "out/src/sub/f").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(std::filesystem::last_write_time(dir / "out/src/sub/f"),
            std::filesystem::last_write_time(dir / "src/sub/f"));
}

// Symlinks planted in -C before the run are replaced (the directory entry by a directory, the
// file by the file), never written through.
TEST(Unpack, PlantedSymlinksAreNotFollowed) {
  test::TempDir dir;
  test::write_file(dir / "src/d/f", "new");
  test::write_file(dir / "src/g", "new");
  PackOptions pack_options;
  pack_options.sources = {"src"};
  pack_options.format = Format::tar;
  auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  auto sink = open_output({"a.tar", std::nullopt, 1, Overwrite::no});
  ASSERT_TRUE(sink.ok());
  ASSERT_TRUE(pack(pack_options, **sink).ok());
  std::filesystem::current_path(cwd);
  test::write_file(dir / "outside/f", "old");
  test::write_file(dir / "outside/g", "old");

  std::filesystem::create_directories(dir / "x/src");
  std::filesystem::create_symlink(dir / "outside", dir / "x/src/d");
  UnpackOptions options;
  options.parts = {dir / "a.tar"};
  options.directory = dir / "x";
  auto stats = unpack(options);
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(test::read_file(dir / "outside/f"), "old");
  EXPECT_FALSE(std::filesystem::is_symlink(dir / "x/src/d"));
  EXPECT_EQ(test::read_file(dir / "x/src/d/f"), "new");

  std::filesystem::create_directories(dir / "y/src/d");
  std::filesystem::create_symlink(dir / "outside/g", dir / "y/src/g");
  options.directory = dir / "y";
  stats = unpack(options);
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(test::read_file(dir / "outside/g"), "old");
  EXPECT_FALSE(std::filesystem::is_symlink(dir / "y/src/g"));
  EXPECT_EQ(test::read_file(dir / "y/src/g"), "new");
}

TEST(Unpack, NotAnArchiveNamesTheFile) {
  test::TempDir dir;
  test::write_file(dir / "notes.txt", "just some text\n");
  UnpackOptions options;
  options.parts = {dir / "notes.txt"};
  options.directory = dir / "out";
  auto stats = unpack(options);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find(dir / "notes.txt" + ": not an archive"), std::string::npos);
}

}  // namespace pdx
