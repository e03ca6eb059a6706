#include "distribute/push/posix_push.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "distribute/host_outcome.h"
#include "distribute/remote_agent.h"
#include "distribute/remote_commands.h"
#include "scratch.h"
#include "tests/unit/command_reply.h"

namespace pdx {
namespace {

using namespace std::string_literals;
using test::reply;

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

// A plan of everything: what a host without DEST lacks.
HostPushPlan everything(const PushSources& sources) {
  auto plan = plan_host(sources, HostListing{}, "dest");
  EXPECT_TRUE(plan) << plan.error();
  return plan ? *plan : HostPushPlan{};
}

TEST(PosixPush, ATreeLandsWithItsNamesModesAndTimes) {
  test::TempDir dir;
  test::write_file(dir / "src/sub dir/it's $(x)", "quoted");
  test::write_file(dir / "src/-n\nline", "newline");
  std::filesystem::create_directories(dir / "src/empty");
  std::filesystem::permissions(dir / "src/-n\nline", std::filesystem::perms(0751));
  auto sources = scan_sources({dir / "src"}, "dest");
  ASSERT_TRUE(sources) << sources.error();
  auto push = PosixPush::files(*sources, everything(*sources), "dest");
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
  auto push = PosixPush::files(*sources, everything(*sources), "dest");
  ASSERT_TRUE(push);
  EXPECT_EQ(run_sh(**push, dir), 0) << test::read_file(dir / "err");
  EXPECT_EQ(test::list_dir(dir / "dest"), std::vector<std::string>{"a"});
  auto errors = (*push)->finish();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], dir / "src/b" + ": No such file or directory");
}

// What the host has at DEST, as its find lists it (remote_commands.h, posix_list_command).
HostListing list_with_find(const test::TempDir& dir, const PushSources& sources) {
  test::write_file(dir / "list", posix_list_command("dest", sources.tops));
  std::string line = "cd '" + dir.path().string() + "' && sh ./list > listing 2> err";
  EXPECT_EQ(WEXITSTATUS(std::system(line.c_str())), 0) << test::read_file(dir / "err");
  auto listing = parse_posix_listing(test::read_file(dir / "listing"));
  EXPECT_TRUE(listing) << listing.error();
  return listing ? std::move(*listing) : HostListing{};
}

// Pushed once, the tree is listed by the host's find as the agent would list it: a run again
// needs nothing, and after a change only the changed file (and its directory's mtime).
TEST(PosixPush, ARunAgainSendsOnlyWhatChanged) {
  test::TempDir dir;
  test::write_file(dir / "src/sub dir/it's \"$(x)\"", "quoted");
  test::write_file(dir / "src/-n\nline", "newline");
  test::write_file(dir / "src/b", "b");
  auto sources = scan_sources({dir / "src"}, "dest/");
  ASSERT_TRUE(sources);
  auto first = plan_host(*sources, list_with_find(dir, *sources), "dest/", Lister::find);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->files.size(), 3u);
  auto push = PosixPush::files(*sources, *first, "dest/");
  ASSERT_TRUE(push);
  EXPECT_EQ(run_sh(**push, dir), 0) << test::read_file(dir / "err");
  EXPECT_TRUE(plan_host(*sources, list_with_find(dir, *sources), "dest/", Lister::find)->empty());

  test::write_file(dir / "src/b", "b changed");
  sources = scan_sources({dir / "src"}, "dest/");
  auto again = plan_host(*sources, list_with_find(dir, *sources), "dest/", Lister::find);
  ASSERT_TRUE(again);
  ASSERT_EQ(again->files.size(), 1u);
  EXPECT_EQ(sources->into.files[again->files[0]].name, "src/b");
  ASSERT_EQ(again->dirs.size(), 1u);  // its directory, whose mtime is set again after
  EXPECT_EQ(sources->into.dirs[again->dirs[0]].name, "src");
  push = PosixPush::files(*sources, *again, "dest/");
  EXPECT_EQ(run_sh(**push, dir), 0) << test::read_file(dir / "err");
  EXPECT_EQ(test::read_file(dir / "out"), "c 1 9\0"s);
  EXPECT_EQ(test::read_file(dir / "dest/src/b"), "b changed");
  EXPECT_EQ(test::read_file(dir / "dest/src/-n\nline"), "newline");
}

// Names are bytes, not text: one that is no UTF-8 lands as it is, with everything after it,
// and the host's find lists it back, so that a run again finds all up to date. Directories
// land with their mtimes, set after their contents, and their modes (0555 too).
TEST(PosixPush, AnyByteStringIsANameAndDirectoriesKeepTheirTimes) {
  test::TempDir dir;
  std::vector<std::string> names = {"bad\xff", "caf\xc3\xa9", "sub/\xfe\xfe/x", "z"};
  for (const auto& name : names) test::write_file(dir / "src/" + name, name);
  std::filesystem::permissions(dir / "src/sub", std::filesystem::perms(0555));
  for (const char* d : {"src/sub/\xfe\xfe", "src/sub", "src"}) {
    timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 123456789}};
    ASSERT_EQ(::utimensat(AT_FDCWD, (dir / d).c_str(), times, 0), 0);
  }
  auto sources = scan_sources({dir / "src"}, "dest/");
  ASSERT_TRUE(sources) << sources.error();
  auto plan = plan_host(*sources, list_with_find(dir, *sources), "dest/", Lister::find);
  ASSERT_TRUE(plan);
  auto push = PosixPush::files(*sources, *plan, "dest/");
  ASSERT_TRUE(push) << push.error();
  EXPECT_EQ(run_sh(**push, dir), 0) << test::read_file(dir / "err");
  EXPECT_EQ(test::read_file(dir / "out"), "c 4 18\0"s);
  for (const auto& name : names) EXPECT_EQ(test::read_file(dir / "dest/src/" + name), name);
  for (const char* d : {"src/sub/\xfe\xfe", "src/sub", "src"}) {
    struct stat st;
    ASSERT_EQ(::stat((dir / "dest/" + d).c_str(), &st), 0);
    EXPECT_EQ(st.st_mtim.tv_sec, 1000000000) << d;
    EXPECT_EQ(st.st_mtim.tv_nsec, 123456789) << d;
    EXPECT_EQ(st.st_mode & 07777, std::string(d) == "src/sub" ? 0555u : 0755u) << d;
  }
  EXPECT_TRUE((*push)->finish().empty());
  EXPECT_TRUE(plan_host(*sources, list_with_find(dir, *sources), "dest/", Lister::find)->empty());
  for (const char* d : {"src/sub", "dest/src/sub"})  // for TempDir to remove, as any user
    std::filesystem::permissions(dir / d, std::filesystem::perms(0755));
}

// One file SRC: written as DEST, then found up to date there.
TEST(PosixPush, OneFileAsDestIsFoundUpToDate) {
  test::TempDir dir;
  test::write_file(dir / "one", "1");
  auto sources = scan_sources({dir / "one"}, "dest");
  ASSERT_TRUE(sources);
  auto push = PosixPush::files(*sources, everything(*sources), "dest");
  EXPECT_EQ(run_sh(**push, dir), 0) << test::read_file(dir / "err");
  EXPECT_EQ(test::read_file(dir / "dest"), "1");
  EXPECT_TRUE(plan_host(*sources, list_with_find(dir, *sources), "dest", Lister::find)->empty());
}

TEST(PosixPush, AListingIsReadAsFindPrintsIt) {
  auto listing = parse_posix_listing(
      "d 750 4096 1700000000.2500000000 \0f 644 3 -1.5000000000 ./a b\0"
      "l 777 1 5 ./-n\nx\0"s);
  ASSERT_TRUE(listing) << listing.error();
  EXPECT_EQ(listing->dest.kind, EntryKind::directory);
  EXPECT_EQ(listing->dest.mtime_sec, 1700000000);
  EXPECT_EQ(listing->dest.mode, 0750u);
  ASSERT_EQ(listing->entries.count("a b"), 1u);
  EXPECT_EQ(listing->entries["a b"].kind, EntryKind::file);
  EXPECT_EQ(listing->entries["a b"].size, 3u);
  EXPECT_EQ(listing->entries["a b"].mtime_sec, -2);  // as stat's tv_sec
  EXPECT_EQ(listing->entries["-n\nx"].kind, EntryKind::other);
  EXPECT_EQ(parse_posix_listing("n 0 0 0 \0"s)->dest.kind, EntryKind::missing);
}

// A host's find that lies: names outside DEST, malformed records. Its listing is refused.
TEST(PosixPush, AListingThatLiesIsRefused) {
  for (std::string lie : {"d 0 0 0 \0f 0 1 0 ./../x\0"s, "d 0 0 0 \0f 0 1 0 /etc/passwd\0"s,
                          "d 0 0 0 \0f 0 1 0 ./a/../../x\0"s, "d 0 0 0 \0f 0 1 0 ./\0"s,
                          "d 0 0 0 \0f 0 1 0 ./a//b\0"s, "d 0 0 0 \0f 0 1 0 a\0"s, "f 0 1 0 ./a\0"s,
                          "d 0 0 0 \0d 0 0 0 \0"s, "d 0 x 0 \0"s, "d 0 0 1.x \0"s, "d 0 0 0\0"s,
                          "d 0 0 0 "s, "d 9 0 0 \0"s, "d 12345678 0 0 \0"s, "d 0 0 \0"s, ""s}) {
    auto listing = parse_posix_listing(lie);
    EXPECT_FALSE(listing) << printable(lie);
  }
  EXPECT_EQ(parse_posix_listing("d 0 0 0 \0f 0 1 0 ./../x\0"s).error(),
            "an unsafe name in 'f 0 1 0 ./../x'");
}

TEST(PosixPush, TheUnlistedWarningFoldsHosts) {
  EXPECT_EQ(posix_unlisted_warning({"h1", "h2"}),
            "pdx: warning: h[1-2]: the host's find cannot list DEST (not GNU find); sending "
            "everything\n");
  EXPECT_EQ(posix_unlisted_warning({}), "");
}

TEST(PosixPush, AnArchiveGoesAsItIsWithItsDecompressor) {
  test::TempDir dir;
  test::write_file(dir / "tree/x", "x");
  std::string archive = dir / "a.tar.xz";
  ASSERT_EQ(std::system(("tar -cJf '" + archive + "' -C '" + dir / "tree" + "' x").c_str()), 0);
  auto push = PosixPush::archive({archive}, "dest", "");
  ASSERT_TRUE(push) << push.error();
  EXPECT_NE((*push)->command().find("x \"$t/d\" '' -J &&"), std::string::npos);
  EXPECT_EQ(run_sh(**push, dir), 0) << test::read_file(dir / "err");
  EXPECT_EQ(test::read_file(dir / "dest/x"), "x");
}

// An archive of x (2 MiB: more than the pipe holds, so that the stream waits there while x is
// sent) and y, as parts that end at x's end: GNU tar takes the first part alone as whole.
std::vector<std::string> two_parts(const test::TempDir& dir) {
  test::write_file(dir / "tree/x", std::string(2 << 20, 'x'));
  test::write_file(dir / "tree/y", "y");
  std::string tar = dir / "a.tar";
  EXPECT_EQ(
      std::system(("tar -c --format=ustar -f '" + tar + "' -C '" + dir / "tree" + "' x y").c_str()),
      0);
  std::string whole = test::read_file(tar);
  std::size_t x_end = 512 + (2 << 20);
  test::write_file(dir / "part-0", whole.substr(0, x_end));
  test::write_file(dir / "part-1", whole.substr(x_end));
  return {dir / "part-0", dir / "part-1"};
}

// A part that cannot be read, or that changed after pdx took its size, ends the stream short of
// its last byte: the host places nothing, and pdx names the part.
TEST(PosixPush, AnArchiveCutShortHereIsPlacedNowhere) {
  for (const std::string change : {"unreadable", "shorter", "longer"}) {
    test::TempDir dir;
    std::vector<std::string> parts = two_parts(dir);
    if (change == "unreadable") parts[1] = "/proc/self/mem";  // regular, size 0: EIO at once
    auto push = PosixPush::archive(parts, "dest", "");
    ASSERT_TRUE(push) << push.error();
    // The stream waits with x in the pipe: part-1 is opened only once x is read.
    if (change == "shorter") ::truncate((dir / "part-1").c_str(), 0);
    if (change == "longer") test::write_file(dir / "part-1", test::read_file(dir / "a.tar"));
    EXPECT_EQ(run_sh(**push, dir), 1) << change;
    EXPECT_EQ(test::read_file(dir / "err"),
              "pdx: error: the stream from pdx was cut short; nothing was placed\n")
        << change;
    EXPECT_EQ(test::list_dir(dir / "dest"), std::vector<std::string>{}) << change;
    std::vector<std::string> expected = {change == "unreadable"
                                             ? "/proc/self/mem: read failed: Input/output error"
                                             : parts[1] + ": changed while read (" + change + ")"};
    EXPECT_EQ((*push)->finish(), expected);
  }
}

TEST(PosixPush, AnArchiveInPartsGoesWhole) {
  test::TempDir dir;
  auto push = PosixPush::archive(two_parts(dir), "dest", "");
  ASSERT_TRUE(push) << push.error();
  EXPECT_EQ(run_sh(**push, dir), 0) << test::read_file(dir / "err");
  EXPECT_EQ(test::read_file(dir / "out"), "c 2 2097153\0"s);
  EXPECT_EQ(test::list_dir(dir / "dest"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ((*push)->finish(), std::vector<std::string>{});
}

TEST(PosixPush, AnArchiveFromAPipeIsRefused) {
  auto push = PosixPush::archive({"-"}, "dest", "");
  ASSERT_FALSE(push);
  EXPECT_EQ(push.error(),
            "-: not a regular file; hosts without the agent need the archive's size first");
}

TEST(PosixPush, AZipArchiveIsRefused) {
  test::TempDir dir;
  test::write_file(dir / "a.zip", "PK\3\4rest"s);
  auto push = PosixPush::archive({dir / "a.zip"}, "dest", "");
  ASSERT_FALSE(push);
  EXPECT_EQ(push.error(), "a zip archive cannot be unpacked by the host's tar");
}

}  // namespace
}  // namespace pdx
