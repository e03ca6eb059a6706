#include "distribute/posix_push.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include "scratch.h"

namespace pdx {
namespace {

using namespace std::string_literals;

ReplySink::Reply reply(int status, std::string out, std::string err = "") {
  ReplySink::Reply r;
  r.result.exit_status = status;
  r.out = std::move(out);
  r.err = std::move(err);
  return r;
}

TEST(PosixPush, ReadsFailuresAndTheCount) {
  PushedHost host;
  read_posix_reply(reply(0, "f\0d/a\nb\0Permission denied\0c 3 1024\0"s), host);
  EXPECT_EQ(host.error, "");
  ASSERT_EQ(host.failed.size(), 1u);
  EXPECT_EQ(host.failed[0].path, "d/a\\nb");
  EXPECT_EQ(host.failed[0].reason, "Permission denied");
  EXPECT_EQ(host.written.files, 3u);
  EXPECT_EQ(host.written.bytes, 1024u);
}

TEST(PosixPush, AMalformedOrFailedReplyFailsTheHost) {
  auto error_of = [](const ReplySink::Reply& r) {
    PushedHost host;
    read_posix_reply(r, host);
    return host.error;
  };
  EXPECT_EQ(error_of(reply(1, "", "tar: Unexpected EOF in archive\n")),
            "tar: Unexpected EOF in archive");
  EXPECT_EQ(error_of(reply(1, "", "pdx: error: zstd not found, needed to unpack the archive")),
            "zstd not found, needed to unpack the archive");
  EXPECT_EQ(error_of(reply(0, "")), "malformed reply from the host's sh: no count at its end");
  EXPECT_EQ(error_of(reply(0, "c 1 x\0"s)),
            "malformed reply from the host's sh: unexpected record 'c 1 x'");
  EXPECT_EQ(error_of(reply(0, "c 1 1\0c 1 1\0"s)),
            "malformed reply from the host's sh: unexpected record 'c 1 1'");
  EXPECT_EQ(error_of(reply(0, "c 1 1")),
            "malformed reply from the host's sh: a record without its end");
  EXPECT_EQ(error_of(reply(0, "f\0x\0"s)),
            "malformed reply from the host's sh: unexpected record 'f'");
}

// The stream PosixPush makes, read whole into a file.
std::string stream_of(PosixPush& push, const test::TempDir& dir) {
  std::string data;
  char buffer[65536];
  for (ssize_t n; (n = ::read(push.input(), buffer, sizeof buffer)) > 0;)
    data.append(buffer, static_cast<std::size_t>(n));
  test::write_file(dir / "stream", data);
  return dir / "stream";
}

// Runs the push's command with /bin/sh in `dir`, its stream on stdin; its exit status.
int run_sh(PosixPush& push, const test::TempDir& dir) {
  std::string stream = stream_of(push, dir);
  test::write_file(dir / "cmd", push.command());
  std::string line = "cd '" + dir.path().string() + "' && sh ./cmd < '" + stream + "' > out 2> err";
  return WEXITSTATUS(std::system(line.c_str()));
}

TEST(PosixPush, ATreeLandsWithItsNamesModesAndTimes) {
  test::TempDir dir;
  test::write_file(dir / "src/sub dir/it's $(x)", "quoted");
  test::write_file(dir / "src/-n\nline", "newline");
  std::filesystem::create_directories(dir / "src/empty");
  std::filesystem::permissions(dir / "src/-n\nline", std::filesystem::perms(0751));
  auto sources = scan_sources({dir / "src"}, "dest");
  ASSERT_TRUE(sources) << sources.error();
  auto push = PosixPush::files(*sources, "dest");
  ASSERT_TRUE(push) << push.error();
  EXPECT_EQ(run_sh(**push, dir), 0) << test::read_file(dir / "err");
  EXPECT_EQ(test::read_file(dir / "out"), "c 2 13\0"s);
  EXPECT_EQ(test::read_file(dir / "dest/src/sub dir/it's $(x)"), "quoted");
  EXPECT_EQ(test::read_file(dir / "dest/src/-n\nline"), "newline");
  EXPECT_TRUE(std::filesystem::is_directory(dir / "dest/src/empty"));
  EXPECT_EQ(std::filesystem::status(dir / "dest/src/-n\nline").permissions(),
            std::filesystem::perms(0751));
  EXPECT_EQ(std::filesystem::last_write_time(dir / "dest/src/sub dir/it's $(x)"),
            std::filesystem::last_write_time(dir / "src/sub dir/it's $(x)"));
  EXPECT_EQ(test::list_dir(dir / "dest"), std::vector<std::string>{"src"});
  EXPECT_TRUE((*push)->finish().empty());
}

TEST(PosixPush, AFileUnreadableHereIsNamedAndNotPlaced) {
  test::TempDir dir;
  test::write_file(dir / "src/a", "a");
  test::write_file(dir / "src/b", "b");
  auto sources = scan_sources({dir / "src/"}, "dest");
  ASSERT_TRUE(sources);
  std::filesystem::remove(dir / "src/b");  // gone since the scan
  auto push = PosixPush::files(*sources, "dest");
  ASSERT_TRUE(push);
  EXPECT_EQ(run_sh(**push, dir), 0) << test::read_file(dir / "err");
  EXPECT_EQ(test::list_dir(dir / "dest"), std::vector<std::string>{"a"});
  auto errors = (*push)->finish();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], dir / "src/b" + ": No such file or directory");
}

TEST(PosixPush, AnArchiveGoesAsItIsWithItsDecompressor) {
  test::TempDir dir;
  test::write_file(dir / "tree/x", "x");
  std::string archive = dir / "a.tar.xz";
  ASSERT_EQ(std::system(("tar -cJf '" + archive + "' -C '" + dir / "tree" + "' x").c_str()), 0);
  auto push = PosixPush::archive({archive}, "dest");
  ASSERT_TRUE(push) << push.error();
  EXPECT_NE((*push)->command().find("tar -x -J"), std::string::npos);
  EXPECT_EQ(run_sh(**push, dir), 0) << test::read_file(dir / "err");
  EXPECT_EQ(test::read_file(dir / "dest/x"), "x");
}

TEST(PosixPush, AZipArchiveIsRefused) {
  test::TempDir dir;
  test::write_file(dir / "a.zip", "PK\3\4rest"s);
  auto push = PosixPush::archive({dir / "a.zip"}, "dest");
  ASSERT_FALSE(push);
  EXPECT_EQ(push.error(), "a zip archive cannot be unpacked by the host's tar");
}

}  // namespace
}  // namespace pdx
