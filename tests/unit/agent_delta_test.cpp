#include "agent/agent_delta.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "agent/delta_protocol.h"
#include "tests/unit/delta_memfd.h"
#include "tests/unit/scratch.h"

namespace pdx {
namespace {

namespace fs = std::filesystem;

std::string read_fd(int fd) {
  std::string out(1 << 20, '\0');
  ssize_t n = ::pread(fd, out.data(), out.size(), 0);
  out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return out;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Frames of a delta making `new_bytes` from `old_bytes`, as pdx sync sends them.
std::string delta_frames(const std::string& name, const std::string& old_bytes,
                         const std::string& new_bytes) {
  Fd old_file = test::memory_file(old_bytes);
  auto sig = compute_signature(old_file.get(), old_bytes.size(), 2);
  std::string out = encode_frame(
      FrameType::delta_file, encode(DeltaHeader{name, 0640, 1000000000, 5, sig->size, sig->block}));
  OpsEncoder ops([&](std::string_view p) -> Result<void> {
    out += encode_frame(FrameType::delta_ops, p);
    return {};
  });
  Fd new_file = test::memory_file(new_bytes);
  auto d = compute_delta(new_file.get(), *sig, ops);
  EXPECT_TRUE(ops.finish().ok());
  return out + encode_frame(FrameType::delta_end, encode(DeltaEnd{d->size, d->hash}));
}

const std::string kDone = encode_frame(FrameType::done, "");

struct Patched {
  Result<Summary> result;
  std::vector<Frame> replies;
};

std::vector<Frame> replies_of(int out) {
  std::vector<Frame> replies;
  FrameDecoder decoder;
  decoder.feed(read_fd(out));
  while (auto f = decoder.next()) {
    if (!*f) break;
    replies.push_back(**f);
  }
  return replies;
}

Patched patch(const std::string& dest, const std::string& frames) {
  Fd in = test::memory_file(frames);
  Fd out = test::memory_file("");
  Patched p{agent_patch(dest, in.get(), out.get()), {}};
  p.replies = replies_of(out.get());
  return p;
}

// agent_delete with the entries' frames (and `done`) on its stdin.
Patched remove(const std::string& dest, const std::vector<Entry>& entries) {
  std::string frames;
  for (const auto& e : entries) frames += encode_frame(FrameType::entry, encode(e));
  Fd in = test::memory_file(frames + kDone);
  Fd out = test::memory_file("");
  Patched p{agent_delete(dest, in.get(), out.get()), {}};
  p.replies = replies_of(out.get());
  return p;
}

TEST(AgentDeltaTest, SignaturesSayHowEachFileStands) {
  test::TempDir dir;
  fs::create_directories(dir / "d/sub");
  std::string big(100000, 'b');
  write_file(dir / "d/same", "same");
  write_file(dir / "d/big", big);
  fs::create_symlink("big", dir / "d/link");
  struct stat st;
  ASSERT_EQ(::stat((dir / "d/same").c_str(), &st), 0);
  auto nsec = static_cast<std::uint32_t>(st.st_mtim.tv_nsec);
  std::vector<SignatureRequest> asked = {
      {"same", 4, st.st_mtim.tv_sec, true, EntryKind::file, 0, "", nsec},
      {"big", 5, 0, true},
      {"gone", 1, 0, true},
      {"sub", 1, 0, true},
      {"link", 1, 0, true},
      {"big", 5, 0, false},
      {"", 1, 0, true}};
  std::string frames;
  for (const auto& rq : asked) frames += encode_frame(FrameType::sig_request, encode(rq));
  Fd in = test::memory_file(frames + kDone);
  Fd out = test::memory_file("");
  ASSERT_TRUE(agent_signatures(dir / "d", in.get(), out.get(), 4).ok());
  auto parsed = parse_signatures(read_fd(out.get()), asked);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  const auto& p = *parsed;
  EXPECT_EQ(p[0].state, OldState::same);
  EXPECT_EQ(p[1].state, OldState::changed);
  Fd big_fd = test::memory_file(big);
  EXPECT_EQ(p[1].signature, *compute_signature(big_fd.get(), big.size(), 1));
  EXPECT_EQ(p[2].state, OldState::missing);
  EXPECT_EQ(p[3].state, OldState::directory);
  EXPECT_EQ(p[4].state, OldState::other);  // a symlink is not followed
  EXPECT_EQ(p[5].state, OldState::changed);
  EXPECT_TRUE(p[5].signature.blocks.empty());
  EXPECT_EQ(p[6].state, OldState::directory);
}

// How the agent's --signatures on `dest` says each of `asked` stands (one thread).
std::vector<OldState> states_of(const std::string& dest,
                                const std::vector<SignatureRequest>& asked) {
  std::string frames;
  for (const auto& rq : asked) frames += encode_frame(FrameType::sig_request, encode(rq));
  Fd in = test::memory_file(frames + kDone);
  Fd out = test::memory_file("");
  EXPECT_TRUE(agent_signatures(dest, in.get(), out.get(), 1).ok());
  auto parsed = parse_signatures(read_fd(out.get()), asked);
  EXPECT_TRUE(parsed.ok()) << parsed.error();
  std::vector<OldState> states;
  if (parsed)
    for (const auto& f : *parsed) states.push_back(f.state);
  return states;
}

// A file of the same size and second is the same only to the nanosecond, as far as the host's
// filesystem keeps them: a rewrite within the second pdx sent it in is changed.
TEST(AgentDeltaTest, TheSameFileIsTheSameToTheNanosecond) {
  test::TempDir dir;
  fs::create_directories(dir / "d");
  write_file(dir / "d/f", "abcd");
  struct timespec times[2] = {{0, UTIME_OMIT}, {1700000000, 123000000}};  // milliseconds kept
  ASSERT_EQ(::utimensat(AT_FDCWD, (dir / "d/f").c_str(), times, 0), 0);
  std::vector<SignatureRequest> asked = {
      {"f", 4, 1700000000, false, EntryKind::file, 0, "", 123000000},
      {"f", 4, 1700000000, false, EntryKind::file, 0, "", 123456789},  // cut by the host
      {"f", 4, 1700000000, false, EntryKind::file, 0, "", 124000000},  // another millisecond
      {"f", 4, 1700000000, false, EntryKind::file, 0, "", 0}};
  using enum OldState;
  EXPECT_EQ(states_of(dir / "d", asked), (std::vector<OldState>{same, same, changed, changed}));
}

// Names of several directories, in any order, each under its own: the agent keeps the last
// directory it opened, and a name of another one opens that one; a symlink on the way is not
// followed, nor is a file named with a trailing component that is a file.
TEST(AgentDeltaTest, NamesOfManyDirectoriesStandEachUnderItsOwn) {
  test::TempDir dir;
  fs::create_directories(dir / "d/a");
  fs::create_directories(dir / "d/b");
  fs::create_directories(dir / "elsewhere");
  write_file(dir / "d/a/1", "a1");
  write_file(dir / "d/b/1", "b1!");
  write_file(dir / "elsewhere/1", "e1");
  fs::create_directory_symlink("../elsewhere", dir / "d/c");
  auto file_rq = [&](const char* name, std::uint64_t size) {
    struct stat st {};
    ::lstat((fs::path(dir / "d") / name).c_str(), &st);
    return SignatureRequest{name,
                            size,
                            st.st_mtim.tv_sec,
                            false,
                            EntryKind::file,
                            0,
                            "",
                            static_cast<std::uint32_t>(st.st_mtim.tv_nsec)};
  };
  std::vector<SignatureRequest> asked = {file_rq("a/1", 2),  file_rq("b/1", 3), file_rq("a/1", 2),
                                         file_rq("b/1", 2),  file_rq("c/1", 2), file_rq("a/2", 1),
                                         file_rq("a/1/x", 1)};
  using enum OldState;
  EXPECT_EQ(states_of(dir / "d", asked),
            (std::vector<OldState>{same, same, same, changed, other, missing, missing}));
}

TEST(AgentDeltaTest, DirectoriesAndSymlinksAreTheSameOrNot) {
  test::TempDir dir;
  fs::create_directories(dir / "d/private");
  ASSERT_EQ(::chmod((dir / "d/private").c_str(), 0700), 0);
  fs::create_symlink("v3", dir / "d/latest");
  write_file(dir / "d/file", "x");
  struct stat st;
  ASSERT_EQ(::stat((dir / "d/private").c_str(), &st), 0);
  auto dir_rq = [&](const char* name, std::uint32_t mode, std::int64_t mtime) {
    return SignatureRequest{name,
                            0,
                            mtime,
                            false,
                            EntryKind::directory,
                            mode,
                            "",
                            static_cast<std::uint32_t>(st.st_mtim.tv_nsec)};
  };
  auto link_rq = [](const char* name, const char* target) {
    return SignatureRequest{name, 0, 0, false, EntryKind::symlink, 0, target};
  };
  std::vector<SignatureRequest> asked = {dir_rq("private", 0700, st.st_mtim.tv_sec),
                                         dir_rq("private", 0755, st.st_mtim.tv_sec),
                                         dir_rq("private", 0700, 1),
                                         dir_rq("gone", 0700, 1),
                                         link_rq("latest", "v3"),
                                         link_rq("latest", "v2"),
                                         link_rq("file", "x"),
                                         link_rq("private", "x"),
                                         link_rq("gone", "x")};
  using enum OldState;
  EXPECT_EQ(states_of(dir / "d", asked),
            (std::vector<OldState>{same, directory, directory, missing, same, other, other,
                                   directory, missing}));
}

TEST(AgentDeltaTest, AMalformedRequestIsAnError) {
  test::TempDir dir;
  Fd in = test::memory_file(encode_frame(FrameType::sig_request, "junk") + kDone);
  Fd out = test::memory_file("");
  EXPECT_FALSE(agent_signatures(dir.path(), in.get(), out.get(), 1).ok());
  Fd cut = test::memory_file(encode_frame(FrameType::sig_request, encode(SignatureRequest{"x"})));
  EXPECT_FALSE(agent_signatures(dir.path(), cut.get(), out.get(), 1).ok());
  // A symlink's target must be there and safe; only a file's blocks may be wanted.
  for (const SignatureRequest& bad :
       {SignatureRequest{"x", 0, 0, false, EntryKind::symlink, 0, ""},
        SignatureRequest{"x", 0, 0, false, EntryKind::symlink, 0, std::string("a\0b", 3)},
        SignatureRequest{"x", 0, 0, false, EntryKind::file, 0, "t"},
        SignatureRequest{"x", 0, 0, true, EntryKind::directory, 0755}})
    EXPECT_FALSE(decode_signature_request(encode(bad)).ok());
}

TEST(AgentDeltaTest, PatchRebuildsTheFileWithModeAndMtime) {
  test::TempDir dir;
  fs::create_directories(dir / "d/sub");
  std::string old_bytes(200000, 'o'), new_bytes = old_bytes;
  new_bytes.replace(100000, 10, "0123456789");
  write_file(dir / "d/sub/f", old_bytes);
  Patched p = patch(dir / "d", delta_frames("sub/f", old_bytes, new_bytes) + kDone);
  ASSERT_TRUE(p.result.ok()) << p.result.error();
  EXPECT_EQ(p.result->files, 1u);
  EXPECT_TRUE(slurp(dir / "d/sub/f") == new_bytes);
  struct stat st;
  ASSERT_EQ(::stat((dir / "d/sub/f").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u & ~0022u & 07777);
  EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
  ASSERT_EQ(p.replies.size(), 2u);
  EXPECT_EQ(p.replies[0].type, FrameType::written);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "d/sub"), {}), 1);  // no temporary
}

TEST(AgentDeltaTest, AChangedOldFileOrABadChecksumFailsThatFileOnly) {
  test::TempDir dir;
  fs::create_directories(dir / "d");
  std::string old_bytes(50000, 'o'), new_bytes(50000, 'n');
  write_file(dir / "d/a", old_bytes);
  write_file(dir / "d/b", old_bytes);
  write_file(dir / "d/c", old_bytes);
  std::string bad_sum = delta_frames("b", old_bytes, new_bytes);
  bad_sum[bad_sum.size() - 1] ^= 1;
  Patched p = patch(dir / "d", delta_frames("a", old_bytes + "x", new_bytes) + bad_sum +
                                   delta_frames("c", old_bytes, new_bytes) + kDone);
  ASSERT_TRUE(p.result.ok());
  EXPECT_EQ(p.result->failures, 2u);
  EXPECT_TRUE(slurp(dir / "d/a") == old_bytes);
  EXPECT_TRUE(slurp(dir / "d/b") == old_bytes);
  EXPECT_TRUE(slurp(dir / "d/c") == new_bytes);
  auto a = decode_failed(p.replies[0].payload);
  EXPECT_NE(a->reason.find("changed since its signature"), std::string::npos);
  auto b = decode_failed(p.replies[1].payload);
  EXPECT_EQ(b->reason, "checksum differs from the source");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "d"), {}), 3);
}

TEST(AgentDeltaTest, HostileStreamsAreErrorsAndLeaveNothing) {
  test::TempDir dir;
  fs::create_directories(dir / "d");
  fs::create_directories(dir / "elsewhere");
  std::string old_bytes(50000, 'o');
  write_file(dir / "d/a", old_bytes);
  write_file(dir / "elsewhere/a", old_bytes);
  fs::create_directory_symlink(dir / "elsewhere", dir / "d/link");
  std::string good = delta_frames("a", old_bytes, std::string(50000, 'n'));
  std::string header = good.substr(0, good.find(static_cast<char>(FrameType::delta_ops), 5));
  std::string past_end;
  OpsEncoder ops([&](std::string_view p) -> Result<void> {
    past_end = encode_frame(FrameType::delta_ops, p);
    return {};
  });
  ASSERT_TRUE(ops.copy(1000, 1).ok());
  ASSERT_TRUE(ops.finish().ok());
  const std::vector<std::string> hostile = {
      header,          // the input ends inside a file
      header + kDone,  // done inside a file
      header + encode_frame(FrameType::delta_ops, "Zjunk") + kDone,
      header + past_end + kDone,                       // a block past the old file
      encode_frame(FrameType::delta_ops, "") + kDone,  // outside a file
      encode_frame(FrameType::delta_file, "junk") + kDone,
      header + header + kDone,
      encode_frame(FrameType::file, "") + kDone,  // push's frames
  };
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    Patched p = patch(dir / "d", hostile[i]);
    EXPECT_FALSE(p.result.ok()) << i;
    EXPECT_TRUE(slurp(dir / "d/a") == old_bytes) << i;
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "d"), {}), 2) << i;
  }
  Patched through_link = patch(dir / "d", delta_frames("link/a", old_bytes, "new") + kDone);
  ASSERT_TRUE(through_link.result.ok());
  EXPECT_EQ(through_link.result->failures, 1u);
  EXPECT_TRUE(slurp(dir / "elsewhere/a") == old_bytes);
}

TEST(AgentDeltaTest, DeleteRemovesTheNamesChildrenFirst) {
  test::TempDir dir;
  fs::create_directories(dir / "d/gone/deeper");
  write_file(dir / "d/gone/deeper/f", "f");
  write_file(dir / "d/old", "old");
  write_file(dir / "d/kept", "kept");
  Patched p = remove(dir / "d", {{"gone/deeper/f", EntryKind::file},
                                 {"gone/deeper", EntryKind::directory},
                                 {"gone", EntryKind::directory},
                                 {"old", EntryKind::file},
                                 {"never/was", EntryKind::file}});  // gone already: no failure
  ASSERT_TRUE(p.result.ok()) << p.result.error();
  EXPECT_EQ(p.result->files, 4u);
  EXPECT_EQ(p.result->failures, 0u);
  ASSERT_EQ(p.replies.size(), 1u);
  EXPECT_EQ(p.replies[0].type, FrameType::summary);
  EXPECT_FALSE(fs::exists(dir / "d/gone"));
  EXPECT_FALSE(fs::exists(dir / "d/old"));
  EXPECT_TRUE(fs::exists(dir / "d/kept"));
}

TEST(AgentDeltaTest, DeleteSaysWhyTheNamesDirectoryCannotBeOpened) {
  test::TempDir dir;
  fs::create_directories(dir / "d");
  write_file(dir / "d/file", "f");
  Patched p = remove(dir / "d", {{"file/x", EntryKind::file}});  // its directory is a file
  ASSERT_TRUE(p.result.ok()) << p.result.error();
  EXPECT_EQ(p.result->failures, 1u);
  ASSERT_EQ(p.replies.size(), 2u);
  EXPECT_EQ(decode_failed(p.replies[0].payload)->reason, "Not a directory");
  Patched no_dest = remove(dir / "none", {{"x", EntryKind::file}});  // nothing there to delete
  ASSERT_TRUE(no_dest.result.ok()) << no_dest.result.error();
  EXPECT_EQ(no_dest.result->failures, 0u);
}

TEST(AgentDeltaTest, DeleteNeverLeavesDestNorFollowsASymlink) {
  test::TempDir dir;
  fs::create_directories(dir / "d/full");
  fs::create_directories(dir / "elsewhere");
  write_file(dir / "d/full/new", "appeared since the listing");
  write_file(dir / "elsewhere/precious", "p");
  fs::create_directory_symlink(dir / "elsewhere", dir / "d/link");
  fs::create_directory_symlink(dir / "elsewhere", dir / "d/link2");
  Patched p = remove(dir / "d", {{"link/precious", EntryKind::file},  // through a symlink
                                 {"full", EntryKind::directory},      // not empty
                                 {"", EntryKind::directory},          // DEST itself
                                 {"link2", EntryKind::other}});       // the link, not its target
  ASSERT_TRUE(p.result.ok()) << p.result.error();
  EXPECT_EQ(p.result->files, 1u);
  EXPECT_EQ(p.result->failures, 3u);
  std::vector<std::string> reasons;
  for (const auto& f : p.replies)
    if (f.type == FrameType::failed) reasons.push_back(decode_failed(f.payload)->reason);
  ASSERT_EQ(reasons.size(), 3u);
  EXPECT_EQ(reasons[0], "a symlink on the way is not followed");
  EXPECT_EQ(reasons[1], "Directory not empty");
  EXPECT_EQ(reasons[2], "the destination itself is never deleted");
  EXPECT_TRUE(fs::exists(dir / "elsewhere/precious"));
  EXPECT_TRUE(fs::exists(dir / "d/full/new"));
  EXPECT_FALSE(fs::is_symlink(dir / "d/link2"));
  EXPECT_TRUE(fs::exists(dir / "d/link"));

  for (const char* unsafe : {"../elsewhere/precious", "/etc/passwd", "a/../../x"}) {
    std::string payload = encode(Entry{unsafe, EntryKind::file});  // encoding checks nothing
    Fd in = test::memory_file(encode_frame(FrameType::entry, payload) + kDone);
    Fd out = test::memory_file("");
    auto r = agent_delete(dir / "d", in.get(), out.get());
    ASSERT_FALSE(r.ok()) << unsafe;
    EXPECT_NE(r.error().find("unsafe name"), std::string::npos) << r.error();
  }
  EXPECT_TRUE(fs::exists(dir / "elsewhere/precious"));
  Fd in = test::memory_file(encode_frame(FrameType::file, "") + kDone);  // push's frames
  Fd out = test::memory_file("");
  EXPECT_FALSE(agent_delete(dir / "d", in.get(), out.get()).ok());
}

}  // namespace
}  // namespace pdx
