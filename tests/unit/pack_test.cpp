#include "archive/pack.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <functional>

#include "tests/unit/archive_memory_sink.h"
#include "tests/unit/scratch.h"

namespace pdx {

namespace {

// The entry names of an archive held in memory, in order.
std::vector<std::string> entry_names(const std::string& bytes) {
  std::vector<std::string> names;
  struct archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  // What pack writes (not _all: its xar reader needs libxml2, which pdx does not link).
  archive_read_support_format_tar(a);
  archive_read_support_format_zip(a);
  EXPECT_EQ(archive_read_open_memory(a, bytes.data(), bytes.size()), ARCHIVE_OK);
  archive_entry* entry;
  while (archive_read_next_header(a, &entry) == ARCHIVE_OK) {
    names.emplace_back(archive_entry_pathname(entry));
  }
  archive_read_free(a);
  return names;
}

}  // namespace

TEST(Pack, DepthFirstInNameOrderForEveryFormat) {
  test::TempDir dir;
  test::write_file(dir / "src/b/x", "x");
  test::write_file(dir / "src/a", "a");
  test::write_file(dir / "src/c", "c");
  for (Format format : {Format::tar, Format::tar_gz, Format::tar_bz2, Format::tar_xz,
                        Format::tar_zst, Format::zip}) {
    PackOptions options;
    options.sources = {dir / "src"};
    options.format = format;
    std::vector<std::string> listed;
    options.on_entry = [&listed](const std::string& name) { listed.push_back(name); };
    test::MemorySink out;
    auto stats = pack(options, out);
    ASSERT_TRUE(stats.ok()) << stats.error();
    EXPECT_TRUE(out.finished);
    EXPECT_EQ(stats->files, 3u);
    EXPECT_EQ(stats->file_bytes, 3u);
    EXPECT_EQ(stats->incomplete, 0u);
    std::string stored = (dir / "src").substr(1);  // the leading '/' removed
    std::vector<std::string> want = {stored + "/", stored + "/a", stored + "/b/", stored + "/b/x",
                                     stored + "/c"};
    EXPECT_EQ(entry_names(out.bytes), want) << format_name(format);
    EXPECT_EQ(listed.size(), 5u);
  }
}

TEST(Pack, LeadingSlashAndDotDotRemovedWithAWarning) {
  test::TempDir dir;
  test::write_file(dir / "src/f", "f");
  PackOptions options;
  options.sources = {dir / "src/../src"};
  std::vector<std::string> warnings;
  options.on_warning = [&warnings](const std::string& w) { warnings.push_back(w); };
  test::MemorySink out;
  ASSERT_TRUE(pack(options, out).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("removing leading '/'"), std::string::npos);
  EXPECT_EQ(entry_names(out.bytes).back(), (dir / "src/f").substr(1));
}

TEST(Pack, SourcesUnderTheNamesGivenEachEntryRenamed) {
  test::TempDir dir;
  test::write_file(dir / "src/tree/x", "x");
  test::write_file(dir / "f", "f");
  PackOptions options;
  options.sources = {dir / "src/tree", dir / "f"};
  options.names = {"./run", "/abs/../f"};  // stored as given: nothing removed, no warning
  options.rename = [](const std::string& name) { return name + "!"; };
  std::vector<std::string> warnings;
  options.on_warning = [&warnings](const std::string& w) { warnings.push_back(w); };
  test::MemorySink out;
  ASSERT_TRUE(pack(options, out).ok());
  EXPECT_TRUE(warnings.empty());
  std::vector<std::string> want = {"./run!/", "./run/x!", "/abs/../f!"};
  EXPECT_EQ(entry_names(out.bytes), want);
}

TEST(Pack, UnreadableSourceIsAnErrorAndTheSinkUnfinished) {
  test::TempDir dir;
  PackOptions options;
  options.sources = {dir / "missing"};
  test::MemorySink out;
  auto stats = pack(options, out);
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().find(dir / "missing"), std::string::npos);
  EXPECT_FALSE(out.finished);
}

// A file that cannot be opened, even as root: /proc/sys's write-only entries (none: "").
std::string write_only_file() {
  const char* path = "/proc/sys/vm/compact_memory";
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) ::close(fd);
  return fd < 0 && errno == EACCES ? path : "";
}

TEST(Pack, WithOnUnreadableWhatCannotBeReadIsNamedAndLeftOut) {
  std::string locked = write_only_file();
  if (locked.empty()) GTEST_SKIP() << "no write-only file in /proc/sys here";
  test::TempDir dir;
  test::write_file(dir / "a", "a");
  test::write_file(dir / "z", "z");
  PackOptions options;
  options.sources = {dir / "a", locked, dir / "missing", dir / "z"};
  options.names = {"a", "locked", "missing", "z"};
  std::vector<std::string> said;
  options.on_unreadable = [&](const std::string& error) { said.push_back(error); };
  test::MemorySink out;
  auto stats = pack(options, out);
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_TRUE(out.finished);
  EXPECT_EQ(stats->unreadable, 2u);
  EXPECT_EQ(entry_names(out.bytes), (std::vector<std::string>{"a", "z"}));
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[0],
            locked + ": cannot read: Permission denied; fix its permissions or leave it out");
  EXPECT_EQ(said[1], dir / "missing" + ": cannot read: No such file or directory");

  options.on_unreadable = nullptr;  // unset: the first ends packing
  test::MemorySink failed;
  auto refused = pack(options, failed);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(), said[0]);
  EXPECT_FALSE(failed.finished);
}

TEST(Pack, WithOnUnreadableADirectoryThatCannotBeListedIsLeftOut) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads every directory";
  test::TempDir dir;
  test::write_file(dir / "tree/locked/inside", "x");
  test::write_file(dir / "tree/z", "z");
  ::chmod((dir / "tree/locked").c_str(), 0);
  PackOptions options;
  options.sources = {dir / "tree"};
  options.names = {"tree"};
  std::string said;
  options.on_unreadable = [&](const std::string& error) { said += error; };
  test::MemorySink out;
  auto stats = pack(options, out);
  ::chmod((dir / "tree/locked").c_str(), 0700);
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(entry_names(out.bytes), (std::vector<std::string>{"tree/", "tree/z"}));
  EXPECT_EQ(said, dir / "tree/locked" +
                      ": cannot read: Permission denied; fix its permissions or leave it out");
}

// A sink that calls `first` before keeping its first bytes: pack is then inside a file's data.
class HookedSink : public test::MemorySink {
 public:
  explicit HookedSink(std::function<void()> first) : first_(std::move(first)) {}
  Result<void> write(const void* data, std::size_t size) override {
    if (first_) std::exchange(first_, nullptr)();
    return MemorySink::write(data, size);
  }

 private:
  std::function<void()> first_;
};

// Rewritten in place while read, at the same size and with its mtime put back, as a tool that
// keeps mtimes would: only its ctime tells, and pack must (exit 1 in `pdx pack`).
TEST(Pack, AFileRewrittenInPlaceWhileReadIsReported) {
  test::TempDir dir;
  const std::size_t size = 4 << 20;  // pack's first flush comes after its first MiB
  test::write_file(dir / "src/big", std::string(size, 'o'));
  test::write_file(dir / "src/small", "s");
  std::string big = dir / "src/big";
  HookedSink out([&] {
    struct stat before;
    ASSERT_EQ(::stat(big.c_str(), &before), 0);
    // The kernel stamps ctime from a coarse clock: wait for it to pass the file's ctime, so
    // that the rewrite leaves a ctime of its own.
    for (timespec now{};;) {
      ::clock_gettime(CLOCK_REALTIME_COARSE, &now);
      if (now.tv_sec > before.st_ctim.tv_sec ||
          (now.tv_sec == before.st_ctim.tv_sec && now.tv_nsec > before.st_ctim.tv_nsec))
        break;
      ::usleep(1000);
    }
    int fd = ::open(big.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    std::string changed(size, 'n');
    ASSERT_EQ(::pwrite(fd, changed.data(), size, 0), static_cast<ssize_t>(size));
    const timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(::futimens(fd, times), 0);
    ::close(fd);
  });
  PackOptions options;
  options.sources = {dir / "src"};
  std::vector<std::string> warnings;
  options.on_warning = [&warnings](const std::string& w) { warnings.push_back(w); };
  auto stats = pack(options, out);
  ASSERT_TRUE(stats.ok()) << stats.error();
  EXPECT_EQ(stats->incomplete, 1u);
  EXPECT_EQ(std::count(warnings.begin(), warnings.end(), big + ": file changed as we read it"), 1);
  EXPECT_EQ(warnings.size(), 2u);  // and "removing leading '/'"
}

TEST(MeasureSources, BoundsTheTarSize) {
  test::TempDir dir;
  test::write_file(dir / "src/a", std::string(1000, 'a'));
  test::write_file(dir / "src/d/b", std::string(10, 'b'));
  auto size = measure_sources({dir / "src"});
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(size->entries, 4u);
  EXPECT_EQ(size->file_bytes, 1010u);
  PackOptions options;
  options.sources = {dir / "src"};
  test::MemorySink out;
  ASSERT_TRUE(pack(options, out).ok());
  EXPECT_LE(out.bytes.size(), size->tar_bytes);
  EXPECT_FALSE(measure_sources({dir / "none"}).ok());
}

}  // namespace pdx
