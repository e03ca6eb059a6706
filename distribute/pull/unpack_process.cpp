#include "distribute/pull/unpack_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <utility>

#include "core/output.h"

extern char** environ;

namespace pdx {

namespace {

constexpr std::size_t kMaxMessage = 4096;  // of the child's stderr read back

std::string errno_text(int error) {
  return std::strerror(error);
}

// The child's stderr: its first "pdx: error: " line, else its first line.
std::string child_message(int fd) {
  std::string text(kMaxMessage, '\0');
  ssize_t n = ::pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  std::string_view all = text;
  std::string_view line = all.substr(0, all.find('\n'));
  for (std::size_t at = 0; at < all.size();) {
    std::size_t end = std::min(all.find('\n', at), all.size());
    std::string_view candidate = all.substr(at, end - at);
    if (candidate.starts_with("pdx: error: ")) {
      line = candidate.substr(12);
      break;
    }
    at = end + 1;
  }
  if (line.starts_with("-: ")) line.remove_prefix(3);
  return std::string(line);
}

}  // namespace

UnpackProcess::UnpackProcess(pid_t pid, Fd input, Fd errors)
    : pid_(pid), input_(std::move(input)), errors_(std::move(errors)) {}

UnpackProcess::UnpackProcess(UnpackProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      input_(std::move(other.input_)),
      errors_(std::move(other.errors_)) {}

UnpackProcess::~UnpackProcess() {
  if (pid_ > 0) (void)finish();
}

Result<UnpackProcess> UnpackProcess::start(const std::vector<std::string>& unpacker,
                                           const std::string& directory) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return Error{"cannot make a pipe: " + errno_text(errno)};
  Fd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  Fd errors(::memfd_create("pdx-unpack-stderr", MFD_CLOEXEC));
  if (!errors) return Error{"cannot make a file for unpack's errors: " + errno_text(errno)};

  std::vector<std::string> args = unpacker;
  for (const char* arg : {"--no-same-owner", "-C", directory.c_str(), "-"}) args.emplace_back(arg);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, read_end.get(), 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, errors.get(), 2);
  // pdx's threads may block signals, and it ignores SIGPIPE: the child gets the defaults, so
  // that Ctrl-C ends it too.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, none;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, s);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return Error{"cannot start " + args[0] + ": " + errno_text(rc)};
  return UnpackProcess(pid, std::move(write_end), std::move(errors));
}

Result<void> UnpackProcess::write(std::string_view bytes) {
  if (!input_) return Error{"unpacking stopped"};
  if (int error = write_all(input_.get(), bytes); error != 0) {
    input_.reset();  // EPIPE: the child ended; its message says why
    return Error{"unpacking stopped: " + errno_text(error)};
  }
  return {};
}

Result<void> UnpackProcess::finish() {
  input_.reset();
  if (pid_ <= 0) return Error{"unpacking already finished"};
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  std::string message = child_message(errors_.get());
  if (message.empty()) {
    message = WIFSIGNALED(status)
                  ? "unpacking was killed by signal " + std::to_string(WTERMSIG(status))
                  : "unpacking failed with exit " + std::to_string(WEXITSTATUS(status));
  }
  return Error{message};
}

}  // namespace pdx
