#pragma once
// Scratch space for the unit tests, under $PDX_TEST_TMP (set by ctest) or /tmp, removed with
// everything in it when the test ends: a directory, or a file a sink can write to by fd.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace pdx::test {

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("PDX_TEST_TMP");
    std::filesystem::create_directories(base ? base : "/tmp");
    std::string pattern = std::string(base ? base : "/tmp") + "/unit.XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    path_ = mkdtemp(buf.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// DIR/name
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// A file in a TempDir, open for writing; read() gives back everything written so far.
class TempFile {
 public:
  TempFile() : path_(dir_ / "out"), fd_(::open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600)) {}
  ~TempFile() { ::close(fd_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  int fd() const { return fd_; }
  std::string read() const;

 private:
  TempDir dir_;
  std::string path_;
  int fd_;
};

inline void write_file(const std::string& path, const std::string& data) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << data;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string TempFile::read() const {
  return read_file(path_);
}

/// Names in a directory, sorted, hidden ones too.
inline std::vector<std::string> list_dir(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// HOME pointed at DIR/home for the test's length (what the agent keeps in ~/.cache).
class ScratchHome {
 public:
  explicit ScratchHome(const TempDir& dir) {
    if (const char* home = std::getenv("HOME")) old_ = home;
    ::setenv("HOME", (dir / "home").c_str(), 1);
  }
  ~ScratchHome() {
    if (old_.empty())
      ::unsetenv("HOME");
    else
      ::setenv("HOME", old_.c_str(), 1);
  }
  ScratchHome(const ScratchHome&) = delete;
  ScratchHome& operator=(const ScratchHome&) = delete;

 private:
  std::string old_;
};

}  // namespace pdx::test
