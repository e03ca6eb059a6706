#include "distribute/remote_commands.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "scratch.h"

namespace pdx {
namespace {

using namespace std::string_literals;

std::string command(const std::vector<std::string>& remotes) {
  auto made = pull_command(remotes);
  EXPECT_TRUE(made) << made.error();
  return made ? *made : "";
}

TEST(RemoteCommands, PullNamesEachRemoteFromItsParent) {
  EXPECT_EQ(command({"/var/log/train.log"}), "tar -cf - -C /var/log ./train.log");
  EXPECT_EQ(command({"out"}), "tar -cf - -C \"$PWD\"/. ./out");
  EXPECT_EQ(command({"/x", "a/b"}), "tar -cf - -C / ./x -C \"$PWD\"/a ./b");
}

TEST(RemoteCommands, PullTrailingSlashMeansContents) {
  EXPECT_EQ(command({"out/run1/"}), "tar -cf - -C \"$PWD\"/out/run1 ./.");
  EXPECT_EQ(command({"/"}), "tar -cf - -C / ./.");
  EXPECT_EQ(command({"a/."}), "tar -cf - -C \"$PWD\"/a ./.");
}

TEST(RemoteCommands, PullQuotesAndNeverPassesForAnOption) {
  EXPECT_EQ(command({"-d/it's $(x)"}), "tar -cf - -C \"$PWD\"/-d './it'\\''s $(x)'");
  EXPECT_EQ(command({"-f"}), "tar -cf - -C \"$PWD\"/. ./-f");
}

TEST(RemoteCommands, PullSuffixRenamesTheTopNames) {
  EXPECT_EQ(*pull_command({"/var/log/train.log"}, ".n&1"),
            "tar -cf - '--transform=s|^\\./[^/][^/]*|&.n\\&1|S' -C /var/log ./train.log");
}

TEST(RemoteCommands, PullCanRefuseDirectoriesBeforeTarStarts) {
  EXPECT_EQ(*pull_command({"-d"}, "", Directories::refused),
            "if [ -d ./-d ]; then printf 'use -r to copy directories: %s\\n' -d >&2; exit 1; fi\n"
            "tar -cf - -C \"$PWD\"/. ./-d");
}

TEST(RemoteCommands, PullRefusesEmptyAndDotDot) {
  EXPECT_FALSE(pull_command({""}));
  auto up = pull_command({"a/.."});
  ASSERT_FALSE(up);
  EXPECT_EQ(up.error_kind(), ErrorKind::bad_input);
}

TEST(RemoteCommands, VerifyListsThenHashes) {
  std::string plain = verify_command("-dir x", false);
  EXPECT_NE(plain.find("cd './-dir x' 2>/dev/null || exit 3\n"), std::string::npos) << plain;
  EXPECT_NE(plain.find("-printf 's %s %P\\0'"), std::string::npos);
  EXPECT_NE(plain.find("-type l -printf 'l %P\\0%l\\0'"), std::string::npos);
  EXPECT_EQ(plain.find("sha256sum"), std::string::npos);
  EXPECT_NE(verify_command("d", true).find("sha256sum -z --"), std::string::npos);
}

// Runs `command` with /bin/sh in `dir`, stdin from the file `input`; its stdout, and `status`.
// `env`: assignments for sh's environment.
std::string run_sh(const test::TempDir& dir, const std::string& command, const std::string& input,
                   int& status, const std::string& env = "") {
  test::write_file(dir / "cmd", command);
  std::string line =
      "cd '" + dir.path().string() + "' && " + env + " sh ./cmd < '" + input + "' > out 2> err";
  status = WEXITSTATUS(std::system(line.c_str()));
  return test::read_file(dir / "out");
}

// A tar stream, made by the system's tar, of DIR/src (named as a POSIX push's stream is: d/...);
// without `flag` (an archive's compression) a stream of files, ended by its marker.
std::string make_tar(const test::TempDir& dir, const std::string& flag = "") {
  std::string tar = dir / "stream.tar";
  std::string line = "tar -c " + flag + " -f '" + tar + "' -C '" + dir.path().string() + "/src' .";
  if (flag.empty()) {
    test::write_file(dir / (std::string("marker/") + kPosixStreamEnd), "");
    line += " -C '" + dir / "marker" + "' " + kPosixStreamEnd;
  }
  EXPECT_EQ(std::system(line.c_str()), 0);
  return tar;
}

// The landing of an archive: the file `tar`, whole.
PosixLanding extract_of(const std::string& tar, const std::string& decompressor) {
  return {PosixLanding::Kind::extract, "", decompressor, test::read_file(tar).size()};
}

TEST(RemoteCommands, PosixPushQuotesDestAndNeverPassesForAnOption) {
  std::string into = posix_push_command("-d/it's $(x)", {});
  EXPECT_TRUE(into.starts_with(R"(D='-d/it'\''s $(x)')"
                               "\nmkdir -p -- \"$D\" || exit 1\n"))
      << into;
  EXPECT_NE(into.find("case $P in -*) P=./$P ;; esac"), std::string::npos);
  EXPECT_NE(into.find(R"(x "$t" d/ -p)"), std::string::npos);
  PosixLanding as{PosixLanding::Kind::into_or_as, "-n 'x'", ""};
  EXPECT_NE(posix_push_command("f", as).find(R"(p "$t/d/"'-n '\''x'\''' "$D")"), std::string::npos);
}

TEST(RemoteCommands, PosixExtractUsesTheDecompressorsFlagAndChecksItIsThere) {
  std::string gz = posix_push_command("d", {PosixLanding::Kind::extract, "", "gzip"});
  EXPECT_NE(gz.find("command -v gzip > /dev/null 2>&1 || { echo 'pdx: error: gzip not found, "
                    "needed to unpack the archive' >&2; exit 1; }"),
            std::string::npos)
      << gz;
  EXPECT_NE(gz.find(R"(x "$t/d" '' -z)"), std::string::npos);
  EXPECT_NE(posix_push_command("d", {PosixLanding::Kind::extract, "", "zstd"}).find("--zstd"),
            std::string::npos);
  EXPECT_NE(posix_push_command("d", {PosixLanding::Kind::extract, "", ""}).find("x \"$t/d\" '' &&"),
            std::string::npos);
}

TEST(RemoteCommands, PosixExtractMergesIntoDestWithoutEnteringSymlinks) {
  test::TempDir dir;
  test::write_file(dir / "src/new/a", "a");
  test::write_file(dir / "src/old/b", "b");
  test::write_file(dir / "src/link/c", "c");
  test::write_file(dir / "src/-f", "f");
  test::write_file(dir / "src/clash/z", "z");
  test::write_file(dir / "dest/clash", "a file");
  test::write_file(dir / "dest/old/kept", "kept");
  test::write_file(dir / "dest/-f", "old");
  std::filesystem::create_directories(dir / "outside");
  std::filesystem::create_directory_symlink(dir / "outside", dir / "dest/link");
  std::string tar = make_tar(dir, "-z");
  int status = 0;
  std::string out = run_sh(dir, posix_push_command("dest", extract_of(tar, "gzip")), tar, status);
  EXPECT_EQ(status, 0) << test::read_file(dir / "err");
  // Entries in name order: clash, link.
  EXPECT_EQ(out,
            "f\0dest/clash\0Not a directory\0f\0dest/link\0a symlink on the way is not followed\0"
            "c 5 5\0"s);
  EXPECT_EQ(test::read_file(dir / "dest/new/a"), "a");
  EXPECT_EQ(test::read_file(dir / "dest/old/b"), "b");
  EXPECT_EQ(test::read_file(dir / "dest/old/kept"), "kept");
  EXPECT_EQ(test::read_file(dir / "dest/-f"), "f");
  EXPECT_TRUE(std::filesystem::is_empty(dir / "outside"));
  EXPECT_EQ(test::list_dir(dir / "dest"),
            (std::vector<std::string>{"-f", "clash", "link", "new", "old"}));
}

// GNU tar takes an archive that ends at an entry's end as whole, and a gzip cut short makes it
// fail with its own words: either way the host counts fewer bytes than pdx said, places nothing,
// and says the stream was cut short.
TEST(RemoteCommands, PosixExtractRecordsTheSetAndBelievesItOnlyWhileDestIsUnchanged) {
  test::TempDir dir;
  test::write_file(dir / "src/a", "a");
  test::write_file(dir / "src/sub/b", "b");
  std::filesystem::create_directories(dir / "home");
  std::string tar = make_tar(dir, "-z");
  PosixLanding landing = extract_of(tar, "gzip");
  landing.set = "pack-1'$(x)";
  const std::string home = "HOME='" + std::string(dir / "home") + "'";
  int status = 0;
  auto held = [&](const std::string& set) {
    return run_sh(dir, posix_extracted_command("dest", set), "/dev/null", status, home);
  };
  EXPECT_EQ(held(landing.set), "");  // nothing unpacked yet
  EXPECT_EQ(run_sh(dir, posix_push_command("dest", landing), tar, status, home), "c 2 2\0"s);
  EXPECT_EQ(status, 0) << test::read_file(dir / "err");
  EXPECT_EQ(held(landing.set), "extracted\n");
  EXPECT_EQ(held("pack-2"), "");              // another set
  test::write_file(dir / "dest/sub/b", "B");  // a file rewritten
  EXPECT_EQ(held(landing.set), "");
  EXPECT_EQ(run_sh(dir, posix_push_command("dest", landing), tar, status, home), "c 2 2\0"s);
  EXPECT_EQ(held(landing.set), "extracted\n");
  test::write_file(dir / "dest/added", "x");  // a file added: the tree is not what was recorded
  EXPECT_EQ(held(landing.set), "");
  std::filesystem::remove(dir / "dest/added");
  std::filesystem::remove(dir / "dest/a");  // a file removed
  EXPECT_EQ(held(landing.set), "");
  // An unpack that places nothing leaves no record: the one there before is gone.
  EXPECT_EQ(run_sh(dir, posix_push_command("dest", landing), tar, status, home), "c 2 2\0"s);
  std::filesystem::remove(dir / "dest/sub/b");
  std::filesystem::create_directory(dir / "dest/sub/b");  // b cannot be placed
  run_sh(dir, posix_push_command("dest", landing), tar, status, home);
  EXPECT_EQ(held(landing.set), "");
}

TEST(RemoteCommands, PosixExtractRefusesAnArchiveCutShort) {
  test::TempDir dir;
  test::write_file(dir / "src/a", std::string(512, 'a'));
  test::write_file(dir / "src/b", "b");
  for (const std::string flag : {"", "-z"}) {
    std::string tar = make_tar(dir, flag.empty() ? "--format=ustar" : flag);
    std::string whole = test::read_file(tar);
    // Plain: the header of "." and the first file's header and data (one block each), no more.
    std::size_t cut = flag.empty() ? 3 * 512 : whole.size() / 2;
    test::write_file(dir / "cut", whole.substr(0, cut));
    int status = 0;
    PosixLanding landing = extract_of(tar, flag.empty() ? "" : "gzip");
    EXPECT_EQ(run_sh(dir, posix_push_command("dest", landing), dir / "cut", status), "") << flag;
    EXPECT_EQ(status, 1) << flag;
    EXPECT_EQ(test::read_file(dir / "err"),
              "pdx: error: the stream from pdx was cut short; nothing was placed\n")
        << flag;
    EXPECT_EQ(test::list_dir(dir / "dest"), std::vector<std::string>{}) << flag;
    // Whole, it goes in.
    EXPECT_EQ(run_sh(dir, posix_push_command("dest", landing), tar, status), "c 2 513\0"s);
    EXPECT_EQ(status, 0) << test::read_file(dir / "err");
    EXPECT_EQ(test::list_dir(dir / "dest"), (std::vector<std::string>{"a", "b"})) << flag;
    std::filesystem::remove_all(dir / "dest");
  }
}

// A tar that fails on its own (here at the first block of a long stream, so that tee stops
// when the FIFO closes, short of the stream's end) is named as such, not as a cut stream.
TEST(RemoteCommands, PosixExtractSaysWhyTarFailedWhenTheStreamWasWhole) {
  test::TempDir dir;
  test::write_file(dir / "junk", std::string(4 << 20, 'j'));
  int status = 0;
  run_sh(dir, posix_push_command("dest", extract_of(dir / "junk", "")), dir / "junk", status);
  EXPECT_EQ(status, 1);
  EXPECT_EQ(test::read_file(dir / "err"), "pdx: error: This does not look like a tar archive\n");
  EXPECT_EQ(test::list_dir(dir / "dest"), std::vector<std::string>{});
}

TEST(RemoteCommands, PosixPushFailsWholeWhenTarDoesAndLeavesNothing) {
  test::TempDir dir;
  test::write_file(dir / "junk", "not a tar stream");
  int status = 0;
  run_sh(dir, posix_push_command("dest", {}), dir / "junk", status);
  EXPECT_NE(status, 0);
  EXPECT_EQ(test::list_dir(dir / "dest"), std::vector<std::string>{});
}

// GNU tar takes a stream that ends at an entry's end, without tar's end blocks, as whole: a
// stream of files cut short there lacks its marker, and nothing of it is placed.
TEST(RemoteCommands, PosixPushRefusesAStreamCutShort) {
  test::TempDir dir;
  test::write_file(dir / "src/d/a", "a");
  test::write_file(dir / "src/d/b", "b");
  std::string whole = test::read_file(make_tar(dir));
  auto end = whole.find(std::string(kPosixStreamEnd) + '\0');
  ASSERT_NE(end, std::string::npos);
  test::write_file(dir / "cut.tar", whole.substr(0, end / 512 * 512));  // before its header
  int status = 0;
  EXPECT_EQ(run_sh(dir, posix_push_command("dest", {}), dir / "cut.tar", status), "");
  EXPECT_EQ(status, 1);
  EXPECT_EQ(test::read_file(dir / "err"),
            "pdx: error: the stream from pdx was cut short; nothing was placed\n");
  EXPECT_EQ(test::list_dir(dir / "dest"), std::vector<std::string>{});
}

// A full disk: GNU tar says "Wrote only N of M bytes" and no reason; the host says the file and
// the disk's own words (here a tar and a dd that say what they would on a full disk).
TEST(RemoteCommands, PosixPushNamesTheFileAndTheReasonWhenTheDiskIsFull) {
  test::TempDir dir;
  test::write_file(dir / "src/d/big", "big");
  std::string tar = make_tar(dir);
  test::write_file(dir / "bin/tar",
                   "cat > /dev/null\n"
                   "echo \"tar: Ignoring unknown extended header keyword 'hdrcharset'\" >&2\n"
                   "echo 'tar: d/sub dir/big: Wrote only 1536 of 10240 bytes' >&2\n"
                   "echo \"tar: Ignoring unknown extended header keyword 'hdrcharset'\" >&2\n"
                   "echo 'tar: Exiting with failure status due to previous errors' >&2\n"
                   "exit 2\n");
  test::write_file(dir / "bin/dd",
                   "echo \"dd: error writing 'x': No space left on device\" >&2\n"
                   "echo '0+0 records out' >&2\nexit 1\n");
  for (const char* tool : {"bin/tar", "bin/dd"})
    std::filesystem::permissions(dir / tool, std::filesystem::perms(0755));
  int status = 0;
  run_sh(dir, posix_push_command("dest", {}), tar, status, "PATH=\"$PWD/bin:$PATH\"");
  EXPECT_EQ(status, 1);
  EXPECT_EQ(test::read_file(dir / "err"),
            "pdx: error: dest/sub dir/big: No space left on device\n");
  EXPECT_EQ(test::list_dir(dir / "dest"), std::vector<std::string>{});
}

TEST(RemoteCommands, PosixPushRemovesTheTemporaryDirectoriesOfDeadRuns) {
  test::TempDir dir;
  test::write_file(dir / "src/d/x", "x");
  std::string tar = make_tar(dir);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::string here = std::string("dest/.push.pdx-") + host;
  std::filesystem::create_directories(dir / (here + "-999999999/d"));         // no such process
  std::filesystem::create_directories(dir / "dest/.push.pdx-elsewhere-1/d");  // another host's
  int status = 0;
  run_sh(dir, posix_push_command("dest", {}), tar, status);
  EXPECT_EQ(status, 0) << test::read_file(dir / "err");
  EXPECT_EQ(test::list_dir(dir / "dest"), (std::vector<std::string>{".push.pdx-elsewhere-1", "x"}));
}

TEST(RemoteCommands, PosixPushReportsWhatMvSaid) {
  test::TempDir dir;
  test::write_file(dir / "src/d/a", "a");
  std::string tar = make_tar(dir);
  std::filesystem::create_directories(dir / "dest");
  test::write_file(dir / "bin/mv",
                   "echo \"mv: cannot move '$3' to '$4': Permission denied\" >&2; exit 1");
  std::filesystem::permissions(dir / "bin/mv", std::filesystem::perms(0755));
  int status = 0;
  std::string out =
      run_sh(dir, posix_push_command("dest", {}), tar, status, "PATH=\"$PWD/bin:$PATH\"");
  EXPECT_EQ(status, 0) << test::read_file(dir / "err");
  EXPECT_EQ(out, "f\0dest/a\0Permission denied\0c 1 1\0"s);
  EXPECT_EQ(test::list_dir(dir / "dest"), std::vector<std::string>{});
}

TEST(RemoteCommands, PosixPushMovesFilesIntoAnExistingDirectoryButNotOntoOne) {
  test::TempDir dir;
  for (const char* name : {"a", "x", "z"}) test::write_file(dir / "src/d/" + name, name);
  std::string tar = make_tar(dir);
  test::write_file(dir / "dest/a", "old");
  std::filesystem::create_directories(dir / "dest/x");
  int status = 0;
  EXPECT_EQ(run_sh(dir, posix_push_command("dest", {}), tar, status),
            "f\0dest/x\0Is a directory\0c 3 3\0"s);
  EXPECT_EQ(test::read_file(dir / "dest/a"), "a");
  EXPECT_EQ(test::read_file(dir / "dest/z"), "z");
  EXPECT_TRUE(std::filesystem::is_empty(dir / "dest/x"));
}

TEST(RemoteCommands, PosixPushOneFileAsDestOrIntoIt) {
  test::TempDir dir;
  test::write_file(dir / "src/d/f", "new");
  std::string tar = make_tar(dir);
  PosixLanding as{PosixLanding::Kind::into_or_as, "f", ""};
  int status = 0;
  EXPECT_EQ(run_sh(dir, posix_push_command("sub/g", as), tar, status), "c 1 3\0"s);
  EXPECT_EQ(test::read_file(dir / "sub/g"), "new");
  EXPECT_EQ(test::list_dir(dir / "sub"), std::vector<std::string>{"g"});
  std::filesystem::create_directories(dir / "into");
  run_sh(dir, posix_push_command("into", as), tar, status);
  EXPECT_EQ(test::read_file(dir / "into/f"), "new");
}

TEST(RemoteCommands, PosixListNamesDestThenEachTopsEntries) {
  test::TempDir dir;
  test::write_file(dir / "-d 'x'/top/it's $(x)", "quoted");
  test::write_file(dir / "-d 'x'/top/-n\nline", "nl");
  test::write_file(dir / "-d 'x'/other", "not listed");
  int status = 0;
  std::string out = run_sh(dir, posix_list_command("-d 'x'", {"top"}), "/dev/null", status);
  EXPECT_EQ(status, 0) << test::read_file(dir / "err");
  EXPECT_TRUE(out.starts_with("d ")) << out;
  EXPECT_EQ(out.find("other"), std::string::npos) << out;
  EXPECT_NE(out.find(" ./top\0"s), std::string::npos) << out;
  EXPECT_NE(out.find(" 6 "), std::string::npos) << out;
  EXPECT_NE(out.find(" ./top/it's $(x)\0"s), std::string::npos) << out;
  EXPECT_NE(out.find(" ./top/-n\nline\0"s), std::string::npos) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\0'), 4);
  std::string all = run_sh(dir, posix_list_command("-d 'x'/", {"."}), "/dev/null", status);
  EXPECT_EQ(std::count(all.begin(), all.end(), '\0'), 5) << all;
  EXPECT_NE(all.find(" ./other\0"s), std::string::npos) << all;
}

TEST(RemoteCommands, PosixListSaysWhatDestIsWhenItIsNoDirectory) {
  test::TempDir dir;
  test::write_file(dir / "file", "four");
  int status = 0;
  EXPECT_EQ(run_sh(dir, posix_list_command("missing/", {"."}), "/dev/null", status), "n 0 0 0 \0"s);
  EXPECT_EQ(status, 0);
  for (const char* dest : {"file", "file/"}) {
    std::string out = run_sh(dir, posix_list_command(dest, {"."}), "/dev/null", status);
    EXPECT_TRUE(out.starts_with("f 6")) << dest << ": " << out;  // its mode, 6xx
    EXPECT_NE(out.find(" 4 "), std::string::npos) << dest << ": " << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\0'), 1) << dest;
  }
}

// A host whose find has no -printf (BusyBox, BSD): exit kNoListing, nothing printed.
TEST(RemoteCommands, PosixListNeedsGnuFind) {
  test::TempDir dir;
  test::write_file(dir / "bin/find", "#!/bin/sh\necho 'find: unrecognized: -printf' >&2\nexit 1\n");
  std::filesystem::permissions(dir / "bin/find", std::filesystem::perms(0755));
  int status = 0;
  std::string out = run_sh(dir, posix_list_command("d", {"."}), "/dev/null", status,
                           "PATH='" + dir / "bin" + "':\"$PATH\"");
  EXPECT_EQ(status, kNoListing);
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace pdx
