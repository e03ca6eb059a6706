#include "agent/agent.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "archive/open_output.h"
#include "archive/pack.h"
#include "hash/sha256.h"
#include "hash/xxh3.h"
#include "distribute/push/push_plan.h"
#include "tests/unit/digests.h"
#include "tests/unit/pipe_feeder.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

using test::sha256_of;
using test::xxh3_of;

std::string hash_of(const std::string& data) {  // as a file_end carries it
  return hex(strong_hash(data.data(), data.size()));
}

// The frames of a file NAME holding DATA, sent in data frames of `chunk` bytes, and ended with
// `hash` (DATA's own by default).
std::string file_frames(const std::string& name, const std::string& data, std::string hash = "",
                        std::size_t chunk = 3) {
  std::string s =
      encode_frame(FrameType::file, encode(FileHeader{name, 0640, 1000000000, 5, data.size()}));
  for (std::size_t at = 0; at < data.size(); at += chunk)
    s += encode_frame(FrameType::data, data.substr(at, chunk));
  return s +
         encode_frame(FrameType::file_end, encode(FileEnd{hash.empty() ? hash_of(data) : hash}));
}

std::string done() {
  return encode_frame(FrameType::done, "");
}

struct Received {
  Result<Summary> result = Error{"not run"};
  std::vector<Frame> replies;
};

Received receive(const std::string& dest, std::string input, const std::string& set = "") {
  std::signal(SIGPIPE, SIG_IGN);  // the agent may stop reading before the feeder is done
  test::PipeFeeder in(std::move(input));
  test::TempFile out;
  Received r;
  r.result = agent_receive(dest, in.fd(), out.fd(), set);
  FrameDecoder d;
  d.feed(out.read());
  while (auto f = d.next()) {
    if (!*f) break;
    r.replies.push_back(std::move(**f));
  }
  return r;
}

// Every name in the tree, hidden ones too: nothing left over from a failed file.
std::vector<std::string> tree(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir))
    names.push_back(e.path().lexically_relative(dir).string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Agent, ReceivesFilesWithModeAndMtime) {
  test::TempDir dir;
  auto r =
      receive(dir / "dest", file_frames("a", "hello world") + file_frames("sub/b c", "x") + done());
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  EXPECT_EQ(r.result->files, 2u);
  EXPECT_EQ(r.result->bytes, 12u);
  EXPECT_EQ(test::read_file(dir / "dest/a"), "hello world");
  EXPECT_EQ(test::read_file(dir / "dest/sub/b c"), "x");
  struct stat st;
  ASSERT_EQ(::stat((dir / "dest/a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
  ASSERT_EQ(r.replies.size(), 3u);
  EXPECT_EQ(r.replies[0].type, FrameType::written);
  EXPECT_EQ(r.replies[2].type, FrameType::summary);
}

TEST(Agent, EmptyNameIsTheDestinationItself) {
  test::TempDir dir;
  auto r = receive(dir / "new/file", file_frames("", "abc") + done());
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  EXPECT_EQ(test::read_file(dir / "new/file"), "abc");
}

TEST(Agent, BadChecksumFailsTheFileAndLeavesNothing) {
  test::TempDir dir;
  auto r = receive(dir / "d",
                   file_frames("a", "data", hash_of("other")) + file_frames("b", "ok") + done());
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.result->failures, 1u);
  ASSERT_EQ(r.replies.size(), 3u);  // b written, a's failure, the summary
  ASSERT_EQ(r.replies[1].type, FrameType::failed);
  auto f = decode_failed(r.replies[1].payload);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->path, dir / "d/a");
  EXPECT_EQ(tree(dir / "d"), std::vector<std::string>{"b"});
}

TEST(Agent, CorruptedDataFrameFailsTheFileAndLeavesNothing) {
  test::TempDir dir;
  std::string data(3 * kDataChunk + 11, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7 + i / 4096);
  std::string frames = file_frames("big", data, "", kDataChunk);
  std::string good = frames;
  frames[frames.size() / 2] ^= 0x20;  // one bit, inside the second data frame's payload
  auto r = receive(dir / "d", frames + file_frames("ok", "fine") + done());
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  EXPECT_EQ(r.result->files, 1u);
  EXPECT_EQ(r.result->failures, 1u);
  auto f = decode_failed(r.replies[1].payload);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->path, dir / "d/big");
  EXPECT_EQ(f->reason, "checksum differs from the source");
  EXPECT_EQ(tree(dir / "d"), std::vector<std::string>{"ok"});
  // The same frames unspoilt: the file as sent.
  r = receive(dir / "e", good + done());
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  EXPECT_EQ(r.result->failures, 0u);
  EXPECT_TRUE(test::read_file(dir / "e/big") == data);
}

TEST(Agent, Sha256FileEndIsAMalformedFrame) {  // a pdx of before XXH3: the stream is refused
  test::TempDir dir;
  auto r = receive(dir / "d", file_frames("a", "data", sha256_of("data")) + done());
  ASSERT_FALSE(r.result.ok());
  EXPECT_EQ(r.result.error(), "malformed file end frame");
  EXPECT_EQ(tree(dir / "d"), std::vector<std::string>{});
}

TEST(Agent, FailuresOfOneReasonAreOneReply) {
  test::TempDir dir;
  std::string bad = hash_of("other");
  auto r = receive(dir / "d", file_frames("a", "1", bad) + file_frames("b", "ok") +
                                  file_frames("c", "2", bad) + file_frames("e", "3", bad) + done());
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.result->failures, 3u);
  ASSERT_EQ(r.replies.size(), 3u);  // b written, the failures, the summary
  auto f = decode_failed(r.replies[1].payload);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->path, (dir / "d/a") + " and 2 more");
  EXPECT_EQ(f->reason, "checksum differs from the source");
  EXPECT_EQ(tree(dir / "d"), std::vector<std::string>{"b"});
}

TEST(Agent, AbandonedFileIsDroppedWithoutAWord) {
  test::TempDir dir;
  std::string abandoned = encode_frame(FrameType::file, encode(FileHeader{"a", 0644, 0, 0, 10})) +
                          encode_frame(FrameType::data, "half") +
                          encode_frame(FrameType::file_end, encode(FileEnd{kAbandoned}));
  auto r = receive(dir / "d", abandoned + file_frames("b", "ok") + done());
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  EXPECT_EQ(r.result->files, 1u);
  EXPECT_EQ(r.result->failures, 0u);
  ASSERT_EQ(r.replies.size(), 2u);
  EXPECT_EQ(r.replies[0].type, FrameType::written);
  EXPECT_EQ(tree(dir / "d"), std::vector<std::string>{"b"});
}

TEST(Agent, InputEndingInsideAFileLeavesNothing) {
  test::TempDir dir;
  std::string frames = file_frames("a", "0123456789");
  std::size_t end = encode_frame(FrameType::file_end, encode(FileEnd{kAbandoned})).size();
  auto r = receive(dir / "d", frames.substr(0, frames.size() - end - 2));  // inside a data frame
  ASSERT_FALSE(r.result.ok());
  EXPECT_EQ(tree(dir / "d"), std::vector<std::string>{});
}

TEST(Agent, MalformedFrameIsAnError) {
  test::TempDir dir;
  for (std::string bad :
       {std::string("?garbage"), encode_frame(FrameType::file, "xx"),
        encode_frame(FrameType::data, "outside"),
        encode_frame(FrameType::entry, encode(Entry{"x"})),
        encode_frame(FrameType::file, encode(FileHeader{"../escape", 0644, 0, 0, 1}))}) {
    auto r = receive(dir / "d", bad + done());
    EXPECT_FALSE(r.result.ok());
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "escape"));
}

TEST(Agent, MoreDataThanTheSizeIsAnError) {
  test::TempDir dir;
  std::string s = encode_frame(FrameType::file, encode(FileHeader{"a", 0644, 0, 0, 2})) +
                  encode_frame(FrameType::data, "toolong");
  EXPECT_FALSE(receive(dir / "d", s).result.ok());
  EXPECT_EQ(tree(dir / "d"), std::vector<std::string>{});
}

TEST(Agent, SymlinkOnTheWayIsRefused) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "d");
  std::filesystem::create_directories(dir / "elsewhere");
  std::filesystem::create_directory_symlink(dir / "elsewhere", dir / "d/link");
  auto r = receive(dir / "d", file_frames("link/x", "data") + done());
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.result->failures, 1u);
  auto f = decode_failed(r.replies[0].payload);
  ASSERT_TRUE(f.ok());
  EXPECT_NE(f->reason.find("symlink"), std::string::npos) << f->reason;
  EXPECT_TRUE(std::filesystem::is_empty(dir / "elsewhere"));
}

TEST(Agent, ReplacesAnExistingFile) {
  test::TempDir dir;
  test::write_file(dir / "d/a", "old contents");
  auto r = receive(dir / "d", file_frames("a", "new") + done());
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(test::read_file(dir / "d/a"), "new");
}

TEST(Agent, DirectoryFramesMakeDirectories) {
  test::TempDir dir;
  auto r = receive(dir / "d",
                   encode_frame(FrameType::directory, encode(Directory{"e/f", 0755})) + done());
  ASSERT_TRUE(r.result.ok());
  EXPECT_TRUE(std::filesystem::is_directory(dir / "d/e/f"));
}

TEST(Agent, DirectoriesGetTheirModeAndMtimeAfterTheirContents) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "d/old");
  ASSERT_EQ(::chmod((dir / "d/old").c_str(), 0755), 0);
  auto r = receive(
      dir / "d",
      encode_frame(FrameType::directory, encode(Directory{"private", 0700, 1000000000, 5})) +
          encode_frame(FrameType::directory, encode(Directory{"private/ro", 0500, 1100000000, 0})) +
          encode_frame(FrameType::directory, encode(Directory{"old", 0750, 1, 0})) +
          file_frames("private/ro/x", "data") + done());
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  EXPECT_EQ(r.result->failures, 0u);
  struct stat st;
  ASSERT_EQ(::stat((dir / "d/private").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
  EXPECT_EQ(st.st_mtim.tv_nsec, 5);
  ASSERT_EQ(::stat((dir / "d/private/ro").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0500u);
  EXPECT_EQ(st.st_mtim.tv_sec, 1100000000);  // set after x was written in it
  ASSERT_EQ(::stat((dir / "d/old").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0750u);  // already there: its mode set too
  EXPECT_EQ(test::read_file(dir / "d/private/ro/x"), "data");
  ::chmod((dir / "d/private/ro").c_str(), 0700);  // for TempDir's removal
}

TEST(Agent, HoleFramesLeaveHolesAndCountInTheHash) {
  test::TempDir dir;
  std::string data = "head" + std::string(8 << 20, '\0') + "tail" + std::string(1 << 20, '\0');
  std::string s =
      encode_frame(FrameType::file, encode(FileHeader{"sparse", 0644, 1, 0, data.size()})) +
      encode_frame(FrameType::data, "head") + encode_frame(FrameType::hole, encode(Hole{8 << 20})) +
      encode_frame(FrameType::data, "tail") + encode_frame(FrameType::hole, encode(Hole{1 << 20})) +
      encode_frame(FrameType::file_end, encode(FileEnd{hash_of(data)})) + done();
  auto r = receive(dir / "d", s);
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  EXPECT_EQ(r.result->failures, 0u);
  EXPECT_EQ(test::read_file(dir / "d/sparse"), data);
  struct stat st;
  ASSERT_EQ(::stat((dir / "d/sparse").c_str(), &st), 0);
  EXPECT_LT(st.st_blocks * 512, 1 << 20);  // holes, not 9 MiB of zeros
  // A hole past the file's size: the stream is refused.
  std::string over = encode_frame(FrameType::file, encode(FileHeader{"x", 0644, 1, 0, 4})) +
                     encode_frame(FrameType::hole, encode(Hole{5})) + done();
  EXPECT_FALSE(receive(dir / "d", over).result.ok());
}

std::string symlink_frame(const std::string& name, const std::string& target) {
  return encode_frame(FrameType::symlink, encode(Symlink{name, target, 1000000000, 0}));
}

TEST(Agent, SymlinkFramesMakeSymlinksWithTheirTargetVerbatim) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "elsewhere");
  std::filesystem::create_directories(dir / "d/dir");
  test::write_file(dir / "d/file", "old");
  std::filesystem::create_directory_symlink(dir / "elsewhere", dir / "d/link");
  auto r = receive(dir / "d", symlink_frame("s/model", "../../blobs/1111") +
                                  symlink_frame("dangling", "/no/such thing") +
                                  symlink_frame("file", "v3") + symlink_frame("link", "v2") +
                                  symlink_frame("dir", "v1") + done());
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  EXPECT_EQ(std::filesystem::read_symlink(dir / "d/s/model"), "../../blobs/1111");
  EXPECT_EQ(std::filesystem::read_symlink(dir / "d/dangling"), "/no/such thing");
  EXPECT_EQ(std::filesystem::read_symlink(dir / "d/file"), "v3");  // the file replaced
  EXPECT_EQ(std::filesystem::read_symlink(dir / "d/link"), "v2");  // replaced, not followed
  EXPECT_TRUE(std::filesystem::is_empty(dir / "elsewhere"));
  EXPECT_TRUE(std::filesystem::is_directory(std::filesystem::symlink_status(dir / "d/dir")));
  EXPECT_EQ(r.result->files, 4u);
  EXPECT_EQ(r.result->failures, 1u);
  auto f = decode_failed(r.replies[r.replies.size() - 2].payload);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->path, dir / "d/dir");
  EXPECT_EQ(f->reason, "Is a directory");
  struct stat st;
  ASSERT_EQ(::lstat((dir / "d/dangling").c_str(), &st), 0);
  EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
  EXPECT_EQ(tree(dir / "d"),
            (std::vector<std::string>{"dangling", "dir", "file", "link", "s", "s/model"}));
}

TEST(Agent, ListsSymlinksWithTheirTargets) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "d");
  std::filesystem::create_symlink("v3", dir / "d/latest");
  test::TempFile out;
  ASSERT_TRUE(agent_list(dir / "d", {"."}, out.fd()).ok());
  FrameDecoder d;
  d.feed(out.read());
  std::vector<Entry> entries;
  while (auto f = d.next()) {
    if (!*f || (*f)->type == FrameType::summary) break;
    entries.push_back(*decode_entry((*f)->payload));
  }
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].name, "latest");
  EXPECT_EQ(entries[1].kind, EntryKind::symlink);
  EXPECT_EQ(entries[1].target, "v3");
}

// An archive stream of src/one ("1") and src/sub/two ("22"), packed in `dir`, then done.
std::string archive_frames(const test::TempDir& dir) {
  test::write_file(dir / "src/one", "1");
  test::write_file(dir / "src/sub/two", "22");
  auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  PackOptions pack_options;
  pack_options.sources = {"src"};
  pack_options.format = Format::tar_zst;
  auto sink = open_output({"a.tar.zst", std::nullopt, 1, Overwrite::no});
  EXPECT_TRUE(sink.ok() && pack(pack_options, **sink).ok());
  std::filesystem::current_path(cwd);

  std::string archive = test::read_file(dir / "a.tar.zst");
  std::string s = encode_frame(FrameType::archive, "");
  for (std::size_t at = 0; at < archive.size(); at += 100)
    s += encode_frame(FrameType::data, archive.substr(at, 100));
  return s + encode_frame(FrameType::archive_end, "") + done();
}

TEST(Agent, UnpacksAnArchiveStream) {
  test::TempDir dir;
  auto r = receive(dir / "out", archive_frames(dir));
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  EXPECT_EQ(r.result->failures, 0u);
  EXPECT_EQ(r.result->files, 2u);
  EXPECT_EQ(test::read_file(dir / "out/src/sub/two"), "22");
}

TEST(Agent, GarbageArchiveIsAFailureNamingDest) {
  test::TempDir dir;
  std::string s = encode_frame(FrameType::archive, "") +
                  encode_frame(FrameType::data, std::string(5000, 'z')) +
                  encode_frame(FrameType::archive_end, "") + done();
  auto r = receive(dir / "out", s);
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.result->failures, 1u);
}

TEST(Agent, ArchiveEntryThatCannotBeWrittenIsNamedUnderDest) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "out/src/one/in the way");
  auto r = receive(dir / "out", archive_frames(dir));
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  ASSERT_EQ(r.replies.size(), 2u);
  auto f = decode_failed(r.replies[0].payload);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->path, dir / "out/src/one");
  EXPECT_EQ(f->reason, "Is a directory");
  // Nothing of the archive is placed when a part of it cannot be, nor left hidden.
  EXPECT_FALSE(std::filesystem::exists(dir / "out/src/sub"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / "out"), {}), 1);
}

TEST(Agent, ArchiveWithoutItsEndPlacesNothing) {
  test::TempDir dir;
  std::string s = archive_frames(dir);
  std::string end = encode_frame(FrameType::archive_end, "") + done();
  s.replace(s.size() - end.size(), end.size(), done());
  auto r = receive(dir / "out", s);
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  ASSERT_EQ(r.replies.size(), 2u);
  auto f = decode_failed(r.replies[0].payload);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->path, dir / "out");
  EXPECT_EQ(f->reason, "the stream from pdx was cut short; nothing was placed");
  EXPECT_TRUE(std::filesystem::is_empty(dir / "out"));
}

TEST(Agent, ArchiveCutShortPlacesNothing) {
  test::TempDir dir;
  std::string s = archive_frames(dir);
  std::string end = encode_frame(FrameType::archive_end, "") + done();
  auto r = receive(dir / "out", s.substr(0, s.size() - end.size()));
  EXPECT_FALSE(r.result.ok());
  EXPECT_TRUE(!std::filesystem::exists(dir / "out") || std::filesystem::is_empty(dir / "out"));
}

TEST(Agent, ArchiveIsNotMovedThroughASymlinkInDest) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "out");
  std::filesystem::create_directories(dir / "elsewhere");
  std::filesystem::create_directory_symlink(dir / "elsewhere", dir / "out/src");
  auto r = receive(dir / "out", archive_frames(dir));
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  ASSERT_EQ(r.replies.size(), 2u);
  auto f = decode_failed(r.replies[0].payload);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->path, dir / "out/src");
  EXPECT_EQ(f->reason, "a symlink on the way is not followed");
  EXPECT_TRUE(std::filesystem::is_empty(dir / "elsewhere"));
}

TEST(Agent, ArchiveMergesIntoExistingDirectories) {
  test::TempDir dir;
  test::write_file(dir / "out/src/sub/kept", "k");
  test::write_file(dir / "out/src/one", "old");
  auto r = receive(dir / "out", archive_frames(dir));
  ASSERT_TRUE(r.result.ok()) << r.result.error();
  EXPECT_EQ(r.result->failures, 0u);
  EXPECT_EQ(r.result->files, 2u);
  EXPECT_EQ(test::read_file(dir / "out/src/one"), "1");
  EXPECT_EQ(test::read_file(dir / "out/src/sub/two"), "22");
  EXPECT_EQ(test::read_file(dir / "out/src/sub/kept"), "k");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / "out"), {}), 1);
}

// What `--list=DEST --set=SET` says of DEST: the set it holds, or "".
std::string extracted_set(const std::string& dest, const std::string& set) {
  test::TempFile out;
  EXPECT_TRUE(agent_list(dest, {}, out.fd(), Hashed::no, set).ok());
  auto listing = parse_listing(out.read());
  EXPECT_TRUE(listing.ok()) << listing.error();
  return listing ? listing->extracted : "?";
}

TEST(Agent, ArchiveUnpackedWholeIsRecordedAndListedAsHeld) {
  test::TempDir dir;
  test::ScratchHome home(dir);
  std::string frames = archive_frames(dir);
  EXPECT_EQ(extracted_set(dir / "out", "s1"), "");
  auto r = receive(dir / "out", frames, "s1");
  ASSERT_TRUE(r.result.ok() && r.result->failures == 0u);
  EXPECT_EQ(extracted_set(dir / "out", "s1"), "s1");
  EXPECT_EQ(extracted_set(dir / "out", "s2"), "");
  EXPECT_EQ(extracted_set(dir / "out/", "s1"), "s1");
  // An entry changed since: not held; unpacked again, held again.
  test::write_file(dir / "out/src/sub/two", "23");
  EXPECT_EQ(extracted_set(dir / "out", "s1"), "");
  r = receive(dir / "out", frames, "s1");
  ASSERT_TRUE(r.result.ok() && r.result->failures == 0u);
  EXPECT_EQ(test::read_file(dir / "out/src/sub/two"), "22");
  EXPECT_EQ(extracted_set(dir / "out", "s1"), "s1");
}

TEST(Agent, ArchiveNotPlacedWholeLeavesNoRecord) {
  test::TempDir dir;
  test::ScratchHome home(dir);
  std::string frames = archive_frames(dir);
  ASSERT_TRUE(receive(dir / "out", frames, "s1").result.ok());
  ASSERT_EQ(extracted_set(dir / "out", "s1"), "s1");
  std::filesystem::remove(dir / "out/src/one");
  std::filesystem::create_directories(dir / "out/src/one/in the way");
  auto r = receive(dir / "out", frames, "s1");
  ASSERT_TRUE(r.result.ok());
  EXPECT_EQ(r.result->failures, 1u);
  std::filesystem::remove_all(dir / "out/src/one");
  test::write_file(dir / "out/src/one", "1");
  EXPECT_EQ(extracted_set(dir / "out", "s1"), "");  // the failed unpack dropped the record
}

TEST(Agent, ListsATree) {
  test::TempDir dir;
  test::write_file(dir / "d/a", "12345");
  test::write_file(dir / "d/s/b", "");
  test::TempFile out;
  ASSERT_TRUE(agent_list(dir / "d", {"."}, out.fd()).ok());
  FrameDecoder d;
  d.feed(out.read());
  std::vector<Entry> entries;
  while (auto f = d.next()) {
    if (!*f || (*f)->type == FrameType::summary) break;
    entries.push_back(*decode_entry((*f)->payload));
  }
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].name, "");
  EXPECT_EQ(entries[0].kind, EntryKind::directory);
  auto a = std::find_if(entries.begin(), entries.end(), [](auto& e) { return e.name == "a"; });
  ASSERT_NE(a, entries.end());
  EXPECT_EQ(a->size, 5u);
  EXPECT_EQ(a->kind, EntryKind::file);
}

TEST(Agent, ListsOnlyWhatIsAskedFor) {
  test::TempDir dir;
  test::write_file(dir / "d/a", "1");
  test::write_file(dir / "d/s/b", "2");
  test::write_file(dir / "d/other/c", "3");
  test::TempFile out;
  ASSERT_TRUE(agent_list(dir / "d", {"s", "missing", "../x"}, out.fd()).ok());
  FrameDecoder d;
  d.feed(out.read());
  std::vector<std::string> names;
  while (auto f = d.next()) {
    if (!*f || (*f)->type == FrameType::summary) break;
    names.push_back(decode_entry((*f)->payload)->name);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"", "s", "s/b"}));
}

std::vector<Entry> listed(const std::string& path, const std::vector<std::string>& under,
                          Hashed hashed) {
  test::TempFile out;
  EXPECT_TRUE(agent_list(path, under, out.fd(), hashed).ok());
  FrameDecoder d;
  d.feed(out.read());
  std::vector<Entry> entries;
  while (auto f = d.next()) {
    if (!*f || (*f)->type == FrameType::summary) break;
    entries.push_back(*decode_entry((*f)->payload));
  }
  return entries;
}

TEST(Agent, ListsHashesOfRegularFilesWithChecksum) {
  test::TempDir dir;
  test::write_file(dir / "d/a", "12345");
  test::write_file(dir / "d/s/b", "");
  test::write_file(dir / "f", "top");
  ::symlink("a", (dir / "d/link").c_str());
  for (const auto& e : listed(dir / "d", {"."}, Hashed::yes)) {
    if (e.name == "a")
      EXPECT_EQ(e.digest, xxh3_of("12345"));
    else if (e.name == "s/b")
      EXPECT_EQ(e.digest, xxh3_of(""));
    else
      EXPECT_EQ(e.digest, "") << e.name;  // the directories, the symlink
  }
  for (const auto& e : listed(dir / "d", {"."}, Hashed::no)) EXPECT_EQ(e.digest, "") << e.name;
  auto top = listed(dir / "f", {}, Hashed::yes);  // a file as the listed path itself
  ASSERT_EQ(top.size(), 1u);
  EXPECT_EQ(top[0].digest, xxh3_of("top"));
}

TEST(Agent, ListsHashesAcrossBatches) {  // more entries than one batch of ListingOut
  test::TempDir dir;
  for (int i = 0; i < 5000; ++i) test::write_file(dir / ("d/" + std::to_string(i)), "x");
  auto entries = listed(dir / "d", {"."}, Hashed::yes);
  ASSERT_EQ(entries.size(), 5001u);
  EXPECT_EQ(entries[0].name, "");
  for (std::size_t i = 1; i < entries.size(); ++i) ASSERT_EQ(entries[i].digest, xxh3_of("x"));
}

TEST(Agent, ListsAnUnreadableFileWithoutAHash) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every file";
  test::TempDir dir;
  test::write_file(dir / "d/secret", "x");
  ::chmod((dir / "d/secret").c_str(), 0);
  auto entries = listed(dir / "d", {"."}, Hashed::yes);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].kind, EntryKind::file);
  EXPECT_EQ(entries[1].digest, "");
}

TEST(Agent, ListsAMissingPath) {
  test::TempDir dir;
  test::TempFile out;
  ASSERT_TRUE(agent_list(dir / "none", {"."}, out.fd()).ok());
  FrameDecoder d;
  d.feed(out.read());
  auto f = d.next();
  ASSERT_TRUE(f.ok() && *f);
  EXPECT_EQ(decode_entry((*f)->payload)->kind, EntryKind::missing);
}

}  // namespace
}  // namespace pdx
