#pragma once
// A file under the test temp dir that a sink can write to by fd, read back whole.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace pdx::test {

/// The directory tests may write in: $PDX_TEST_TMP (set by ctest) or the system temp dir.
inline std::filesystem::path temp_dir() {
  const char* env = std::getenv("PDX_TEST_TMP");
  std::filesystem::path dir = env ? env : std::filesystem::temp_directory_path() / "pdx-tests";
  std::filesystem::create_directories(dir);
  return dir;
}

class TempFile {
 public:
  TempFile() {
    std::string pattern = (temp_dir() / "out.XXXXXX").string();
    fd_ = ::mkstemp(pattern.data());
    path_ = pattern;
  }
  ~TempFile() {
    ::close(fd_);
    std::filesystem::remove(path_);
  }
  int fd() const { return fd_; }
  std::string read() const {
    std::ifstream in(path_, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  int fd_;
  std::string path_;
};

}  // namespace pdx::test
