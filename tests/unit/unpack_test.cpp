#include "archive/unpack.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>

#include "archive/open_output.h"
#include "archive/pack.h"
#include "tests/unit/scratch.h"

namespace pdx {

namespace {

// A regular file entry of a hand-made archive.
struct TarFile {
  std::string name;
  std::string data;
  mode_t mode = 0644;
  uid_t uid = 0;
  gid_t gid = 0;
};

// A tar archive of `files` (numeric owners only), written with libarchive.
void write_tar(const std::string& path, const std::vector<TarFile>& files) {
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  ASSERT_EQ(archive_write_open_filename(a, path.c_str()), ARCHIVE_OK);
  for (const auto& file : files) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, file.name.c_str());
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, file.mode);
    archive_entry_set_uid(entry, file.uid);
    archive_entry_set_gid(entry, file.gid);
    archive_entry_set_size(entry, static_cast<la_int64_t>(file.data.size()));
    archive_entry_set_mtime(entry, 1000000000, 0);
    EXPECT_EQ(archive_write_header(a, entry), ARCHIVE_OK);
    EXPECT_EQ(archive_write_data(a, file.data.data(), file.data.size()),
              static_cast<la_ssize_t>(file.data.size()));
    archive_entry_free(entry);
  }
  EXPECT_EQ(archive_write_close(a), ARCHIVE_OK);
  archive_write_free(a);
}

}  // namespace

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

// Symlinks planted in -C before the run are never written through: one where a directory goes
// is refused (as push refuses it), one where a file goes is replaced by the file.
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
  auto stats = unpack(options);  // a symlink where a directory goes: refused, as push does
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error_kind(), ErrorKind::bad_input);
  EXPECT_NE(stats.error().find("entry src/d/: refused: src/d is a symlink"), std::string::npos)
      << stats.error();
  EXPECT_EQ(test::read_file(dir / "outside/f"), "old");
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "x/src/d"));

  std::filesystem::create_directories(dir / "y/src/d");
  std::filesystem::create_symlink(dir / "outside/g", dir / "y/src/g");
  options.directory = dir / "y";
  stats = unpack(options);
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(test::read_file(dir / "outside/g"), "old");
  EXPECT_FALSE(std::filesystem::is_symlink(dir / "y/src/g"));
  EXPECT_EQ(test::read_file(dir / "y/src/g"), "new");
}

// As root, every file gets the owner its entry names, also where creating it gave another one
// (a set-group-ID directory hands down its group), and keeps its set-id bits.
TEST(Unpack, RootSetsOwnersWhereCreatingDidNot) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root";
  test::TempDir dir;
  write_tar(dir / "a.tar", {{"d/root", "1", 0644, 0, 0},
                            {"d/group", "2", 0644, 0, 777},
                            {"d/other", "3", 06755, 1234, 4321},
                            {"top", "4", 0600, 0, 0}});
  std::filesystem::create_directories(dir / "out/d");
  ASSERT_EQ(::chown((dir / "out/d").c_str(), 0, 777), 0);
  ASSERT_EQ(::chmod((dir / "out/d").c_str(), 02775), 0);
  UnpackOptions options;
  options.parts = {dir / "a.tar"};
  options.directory = dir / "out";
  auto stats = unpack(options);
  ASSERT_TRUE(stats.ok()) << stats.error();
  auto owner = [&](const std::string& name) {
    struct stat st;
    EXPECT_EQ(::stat((dir / ("out/" + name)).c_str(), &st), 0) << name;
    return std::to_string(st.st_uid) + ":" + std::to_string(st.st_gid) + " " +
           std::to_string(st.st_mode & 07777);
  };
  EXPECT_EQ(owner("d/root"), "0:0 " + std::to_string(0644));
  EXPECT_EQ(owner("d/group"), "0:777 " + std::to_string(0644));
  EXPECT_EQ(owner("d/other"), "1234:4321 " + std::to_string(06755));
  EXPECT_EQ(owner("top"), "0:0 " + std::to_string(0600));
}

TEST(Unpack, MineKeepsNoOwnersAndNoSetIdBits) {
  test::TempDir dir;
  write_tar(dir / "a.tar", {{"root-suid", "1", 06755, 0, 0}, {"other", "2", 06755, 1234, 4321}});
  UnpackOptions options;
  options.parts = {dir / "a.tar"};
  options.directory = dir / "out";
  options.ownership = Ownership::mine;
  auto stats = unpack(options);
  ASSERT_TRUE(stats.ok()) << stats.error();
  for (const char* name : {"root-suid", "other"}) {
    struct stat st;
    ASSERT_EQ(::stat((dir / ("out/" + std::string(name))).c_str(), &st), 0) << name;
    EXPECT_EQ(st.st_uid, ::geteuid()) << name;
    EXPECT_EQ(st.st_mode & 07777, 0755u) << name;
  }
}

TEST(Unpack, MineRefusesDeviceFilesEvenToRoot) {
  test::TempDir dir;
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  ASSERT_EQ(archive_write_open_filename(a, (dir / "dev.tar").c_str()), ARCHIVE_OK);
  archive_entry* entry = archive_entry_new();
  archive_entry_set_pathname(entry, "sda");
  archive_entry_set_filetype(entry, AE_IFBLK);
  archive_entry_set_perm(entry, 0666);
  archive_entry_set_rdev(entry, makedev(8, 0));
  ASSERT_EQ(archive_write_header(a, entry), ARCHIVE_OK);
  archive_entry_free(entry);
  archive_write_close(a);
  archive_write_free(a);
  UnpackOptions options;
  options.parts = {dir / "dev.tar"};
  options.directory = dir / "out";
  options.ownership = Ownership::mine;
  auto stats = unpack(options);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find("sda is a device file; refused"), std::string::npos)
      << stats.error();
  EXPECT_FALSE(std::filesystem::exists(dir / "out/sda"));
}

TEST(Unpack, NotAnArchiveNamesTheFile) {
  test::TempDir dir;
  test::write_file(dir / "notes.txt", "just some text\n");
  UnpackOptions options;
  options.parts = {dir / "notes.txt"};
  options.directory = dir / "out";
  auto stats = unpack(options);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find(dir / "notes.txt" + ": not a tar or zip archive"),
            std::string::npos);
  EXPECT_EQ(stats.error_kind(), ErrorKind::bad_input);
}

}  // namespace pdx

namespace pdx {

namespace {

Result<UnpackStats> unpack_into(const test::TempDir& dir, const std::string& archive,
                                int strip = 0) {
  UnpackOptions options;
  options.parts = {dir / archive};
  options.directory = dir / "out";
  options.strip_components = strip;
  return unpack(options);
}

}  // namespace

TEST(Unpack, AnIsoImageIsRefusedByName) {
  test::TempDir dir;
  std::string iso(64 << 10, '\0');  // a tar reader takes the zeros for an empty archive
  iso.replace(32769, 5, "CD001");
  test::write_file(dir / "image.iso", iso);
  auto stats = unpack_into(dir, "image.iso");
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error(), dir / "image.iso" +
                               ": not a tar or zip archive (looks like ISO 9660); pdx reads tar, "
                               "zip and cpio, plain or compressed with gzip, bzip2, xz or zstd");
  EXPECT_EQ(stats.error_kind(), ErrorKind::bad_input);
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST(Unpack, ADamagedHeaderIsAnErrorNotAnEntryWithNoName) {
  test::TempDir dir;
  write_tar(dir / "a.tar", {{"first", "1\n"}, {"second", "2\n"}});
  std::string tar = test::read_file(dir / "a.tar");
  std::size_t second = tar.find("second");  // pax header of "second", then its own header
  ASSERT_NE(second, std::string::npos);
  tar[second / 512 * 512 + 10] ^= 0x55;
  test::write_file(dir / "a.tar", tar);
  auto stats = unpack_into(dir, "a.tar");
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find(dir / "a.tar: after entry first: "), std::string::npos)
      << stats.error();
  EXPECT_NE(stats.error().find("the archive is corrupt"), std::string::npos) << stats.error();
  EXPECT_EQ(stats.error_kind(), ErrorKind::bad_input);
}

TEST(Unpack, AWriteFailureNamesTheArchiveAndTheEntry) {
  test::TempDir dir;
  write_tar(dir / "a.tar", {{"sub/file", "data\n"}});
  ASSERT_EQ(::mkdir((dir / "out").c_str(), 0755), 0);
  test::write_file(dir / "out/sub", "a file where the archive has a directory\n");
  auto stats = unpack_into(dir, "a.tar");
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error(),
            dir / "a.tar: entry sub/file: cannot make directory sub: Not a directory");
  EXPECT_EQ(stats.error_kind(), ErrorKind::failure);
}

TEST(Unpack, AnEntryThatCannotBePutInPlaceIsToldApart) {
  test::TempDir dir;
  write_tar(dir / "a.tar", {{"f", "data\n"}});
  ASSERT_EQ(::mkdir((dir / "out").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir((dir / "out/f").c_str(), 0755), 0);
  test::write_file(dir / "out/f/in", "a directory where the archive has a file\n");
  std::vector<EntryFailure> told;
  UnpackOptions options;
  options.parts = {dir / "a.tar"};
  options.directory = dir / "out";
  options.on_entry_failure = [&](const EntryFailure& failed) { told.push_back(failed); };
  auto stats = unpack(options);
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error(), dir / "a.tar: entry f: f: cannot put in place: Is a directory");
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0].entry, "f");
  EXPECT_EQ(told[0].reason, "cannot put in place: Is a directory");
}

TEST(Unpack, AnErrorOfNoEntrysOwnIsNotToldAsOne) {
  test::TempDir dir;
  write_tar(dir / "a.tar", {{"sub/file", "data\n"}});
  ASSERT_EQ(::mkdir((dir / "out").c_str(), 0755), 0);
  test::write_file(dir / "out/sub", "a file where the archive has a directory\n");
  bool told = false;
  UnpackOptions options;
  options.parts = {dir / "a.tar"};
  options.directory = dir / "out";
  options.on_entry_failure = [&](const EntryFailure&) { told = true; };
  ASSERT_FALSE(unpack(options).ok());
  EXPECT_FALSE(told);
}

}  // namespace pdx
