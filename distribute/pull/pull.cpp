#include "distribute/pull/pull.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

#include "core/executor.h"
#include "core/output.h"
#include "distribute/progress_meter.h"
#include "distribute/pull/host_directory.h"
#include "distribute/pull/unpack_process.h"
#include "distribute/reply_sink.h"

namespace pdx {

namespace {

// What the host's shell wrote before its tar (a startup file printing to stdout): nullopt while
// `head` cannot tell; else how many bytes, 0 when `head` starts as tar does (or as nothing pdx
// can name: unpack judges it). Tar's "ustar" is at offset 257 of its first header.
std::optional<std::size_t> tar_preamble(std::string_view head) {
  constexpr std::size_t kMagic = 257, kLongest = 64 * 1024;  // a startup file's text, at most
  if (head.size() < kMagic + 5) return std::nullopt;
  if (head.substr(kMagic, 5) == "ustar") return 0;
  auto at = head.find("ustar", kMagic + 1);
  if (at != std::string_view::npos && at - kMagic <= kLongest) return at - kMagic;
  if (head.size() < kLongest + kMagic + 5) return std::nullopt;
  return 0;
}

// What the host's shell wrote before an empty tar stream (its end-of-archive blocks only: the
// host's tar found nothing to put in it), as the whole of what came: how many bytes, 0 when
// `all` is not some text then NUL blocks.
std::size_t text_before_empty_tar(std::string_view all) {
  std::size_t text = all.find('\0');
  if (text == 0 || text == std::string_view::npos || (all.size() - text) % 512 != 0) return 0;
  return all.find_first_not_of('\0', text) == std::string_view::npos ? text : 0;
}

// One host's receiving end. Used from that host's strand only.
struct Receiver {
  std::string head;                     // the stream's first bytes, until they look like tar
  std::optional<UnpackProcess> unpack;  // started once they do
  std::optional<Error> failed;          // the first failure to start or feed it
  StderrFirstLine complaint;
  std::uint64_t bytes = 0;  // of the stream received
};

class PullSink : public OutputSink {
 public:
  PullSink(const std::vector<Job>& jobs, const PullOptions& options)
      : jobs_(jobs), options_(options), receivers_(jobs.size()), outcomes_(jobs.size()) {}

  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    Receiver& r = receivers_[index];
    if (stream == Stream::err) {
      r.complaint.add(bytes);
      return;
    }
    r.bytes += bytes.size();
    if (r.failed) return;
    if (!r.unpack) {
      r.head.append(bytes);
      auto before = tar_preamble(r.head);
      if (!before) return;  // more to come
      if (*before) {
        r.failed = Error{shell_preamble_said(r.head, *before)};
        return;
      }
      feed(r, index, std::exchange(r.head, {}));
      return;
    }
    feed(r, index, bytes);
  }

  // Hands `bytes` to the host's unpack, started first.
  void feed(Receiver& r, std::size_t index, std::string_view bytes) {
    if (!r.unpack) {
      std::string dir = options_.local_dir;
      if (options_.host_directories) dir += "/" + host_directory(jobs_[index].label);
      auto started = UnpackProcess::start(options_.unpacker, dir);
      if (!started) {
        r.failed = Error{started.error()};
        return;
      }
      r.unpack.emplace(std::move(*started));
    }
    if (r.unpack->write(bytes)) return;
    auto done = r.unpack->finish();  // the child stopped reading: its message says why
    r.failed = Error{done ? "unpacking stopped early" : done.error()};
  }

  void finished(std::size_t index, const HostResult& result) override {
    Receiver& r = receivers_[index];
    if (!r.unpack && !r.failed && !r.head.empty()) {
      if (std::size_t before = text_before_empty_tar(r.head))
        r.failed = Error{shell_preamble_said(r.head, before)};
      else
        feed(r, index, std::exchange(r.head, {}));
    }
    if (r.unpack && !r.failed) {
      if (auto done = r.unpack->finish(); !done) r.failed = Error{done.error()};
    }
    r.unpack.reset();
    outcomes_[index] = outcome(r, result);
  }

  std::vector<HostOutcome> take() { return std::move(outcomes_); }

 private:
  static HostOutcome outcome(const Receiver& r, const HostResult& result) {
    HostOutcome o = unfinished(result).value_or(ended(r, result));
    o.figures.number("bytes", static_cast<std::int64_t>(r.bytes));
    return o;
  }

  // A host whose tar exited: "pulled", or its complaint and what unpack refused.
  static HostOutcome ended(const Receiver& r, const HostResult& result) {
    std::string error;
    if (r.failed) error = r.failed->message;
    if (result.exit_status != 0) {
      std::string complaint = r.complaint.text();
      if (complaint.empty()) complaint = "tar exit " + std::to_string(result.exit_status);
      error += (error.empty() ? "" : "; ") + complaint;
    }
    if (error.empty()) return {0, "pulled", "", {}};
    return {1, error, error, {}};
  }

  const std::vector<Job>& jobs_;
  const PullOptions& options_;
  std::vector<Receiver> receivers_;  // by job index; each touched by its host's strand only
  std::vector<HostOutcome> outcomes_;
};

}  // namespace

Result<void> check_local_dir(const std::string& local_dir) {
  if (local_dir.empty())
    return Error{"LOCAL_DIR is empty: name a directory here", ErrorKind::bad_input};
  std::filesystem::path at = local_dir;
  for (;;) {
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return Error{at.string() + ": not a directory", ErrorKind::bad_input};
      if (::access(at.c_str(), W_OK | X_OK) == 0) return {};
      std::string why = std::strerror(errno);
      return Error{at == local_dir
                       ? "cannot write into " + local_dir + ": " + why
                       : "cannot create " + local_dir + ": " + why + " (in " + at.string() + ")"};
    }
    if (errno != ENOENT || at == ".")
      return Error{"cannot create " + local_dir + ": " + std::strerror(errno)};
    std::filesystem::path parent = at.parent_path();
    at = parent.empty() || parent == at ? "." : parent;
  }
}

std::vector<HostOutcome> pull(Transport& transport, const std::vector<Job>& jobs,
                              const PullOptions& options) {
  PullSink sink(jobs, options);
  MeteredSink metered(sink, options.progress, MeteredSink::Count::hosts_and_output);
  execute(transport, jobs, metered, {options.fanout, 0});
  return sink.take();
}

}  // namespace pdx
