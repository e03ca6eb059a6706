#include "archive/unpack_writers.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <new>
#include <utility>

namespace pdx {

namespace {

// What a job costs beyond its data: the strings and bookkeeping, so that a flood of empty files
// is bounded too.
constexpr std::size_t kJobOverhead = 512;
// The files queued that wake an idle thread: some dozens of small ones.
constexpr std::size_t kWakeBytes = 256 << 10;

}  // namespace

UnpackDirectory::~UnpackDirectory() {
  ::close(fd_);
}

std::optional<gid_t> UnpackDirectory::file_gid() const {
  std::int64_t gid = file_gid_.load(std::memory_order_relaxed);
  if (gid < 0) return std::nullopt;
  return static_cast<gid_t>(gid);
}

void UnpackDirectory::learn_file_gid(gid_t gid) {
  file_gid_.store(gid, std::memory_order_relaxed);
}

void UnpackDirectory::forget_file_gid() {
  file_gid_.store(-1, std::memory_order_relaxed);
}

Error entry_error(const FileToWrite& file, const std::string& shown, const std::string& reason,
                  std::optional<EntryFailure>& failed) {
  failed = EntryFailure{file.entry, reason};
  return Error{file.origin + ": " + shown};
}

Result<UnpackFile> create_file(const FileToWrite& file, const FileCreation& creation,
                               std::optional<EntryFailure>& failed) {
  auto created = UnpackFile::create(file.directory->fd(), file.base, file.temp_name,
                                    file.mode & 0777, creation.hiding);
  if (!created) {
    std::string reason = "cannot create: " + created.error();
    return entry_error(file, reason, reason, failed);
  }
  return created;
}

Result<void> finish_file(UnpackFile& out, const FileToWrite& file, const FileCreation& creation,
                         std::optional<EntryFailure>& failed) {
  mode_t mode = file.mode;
  if (file.owner) {
    UnpackDirectory& directory = *file.directory;
    struct stat st;
    if (!directory.file_gid() && ::fstat(out.fd(), &st) == 0) directory.learn_file_gid(st.st_gid);
    bool owned = file.owner->uid == creation.uid && directory.file_gid() == file.owner->gid;
    if (!owned && ::fchown(out.fd(), file.owner->uid, file.owner->gid) != 0) {
      mode &= ~(S_ISUID | S_ISGID);
    }
  }
  if ((mode & ~(0777 & ~creation.umask)) != 0) ::fchmod(out.fd(), mode);  // else created so
  if (file.atime || file.mtime) {
    struct timespec times[2] = {file.atime.value_or(timespec{0, UTIME_NOW}),
                                file.mtime.value_or(timespec{0, UTIME_NOW})};
    ::futimens(out.fd(), times);
  }
  if (auto ok = out.commit(); !ok)
    return entry_error(file, file.name + ": " + ok.error(), ok.error(), failed);
  return {};
}

UnpackWriters::UnpackWriters(unsigned threads, std::size_t max_bytes, FileCreation creation)
    : max_bytes_(max_bytes), creation_(creation) {
  try {
    for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
  } catch (...) {  // a thread could not be started: those that were are joined
    stop();
    throw;
  }
}

UnpackWriters::~UnpackWriters() {
  stop();
}

// Drops the queued jobs, lets those being written finish, and joins the threads.
void UnpackWriters::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    drop_queued();
  }
  work_ready_.notify_all();
  for (auto& thread : threads_) thread.join();
}

Result<void> UnpackWriters::write(FileToWrite file, std::vector<char> data) {
  std::size_t bytes = data.size() + kJobOverhead;
  std::unique_lock lock(mutex_);
  if (bytes_ > 0 && bytes_ + bytes > max_bytes_) {
    // Down to half, not just to room for this one, so as not to wake on every file written.
    std::size_t target = std::min(max_bytes_ / 2, bytes < max_bytes_ ? max_bytes_ - bytes : 0);
    wake_for_queued();
    waiting_ = target;
    work_done_.wait(lock, [&] { return bytes_ <= target || failure_; });
    waiting_.reset();
  }
  if (failure_) return Error{*failure_};
  queue_.push_back(Job{std::move(file), std::move(data), bytes});
  bytes_ += bytes;
  queued_bytes_ += bytes;
  if (queued_bytes_ >= kWakeBytes) wake_for_queued();
  return {};
}

void UnpackWriters::wake() {
  std::lock_guard lock(mutex_);
  wake_for_queued();
}

// Called with mutex_ held.
void UnpackWriters::wake_for_queued() {
  if (idle_ == 0 || queue_.empty()) return;
  if (queue_.size() > 1) {
    work_ready_.notify_all();
  } else {
    work_ready_.notify_one();
  }
}

Result<void> UnpackWriters::wait() {
  std::unique_lock lock(mutex_);
  wake_for_queued();
  waiting_ = 0;
  work_done_.wait(lock, [&] { return bytes_ == 0; });  // a failure drops what is queued
  waiting_.reset();
  if (failure_) return Error{*failure_};
  return {};
}

std::optional<EntryFailure> UnpackWriters::failed_entry() {
  std::lock_guard lock(mutex_);
  return failed_entry_;
}

void UnpackWriters::work() {
  while (auto job = next_job()) {
    std::size_t bytes = job->bytes;
    std::optional<EntryFailure> failed;
    Result<void> written = write_job(std::move(*job), failed);
    job_done(bytes, written, std::move(failed));
  }
}

// The next job, or none when stopping.
std::optional<UnpackWriters::Job> UnpackWriters::next_job() {
  std::unique_lock lock(mutex_);
  ++idle_;
  work_ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
  --idle_;
  if (queue_.empty()) return std::nullopt;
  std::optional<Job> job(std::move(queue_.front()));
  queue_.pop_front();
  queued_bytes_ -= job->bytes;
  return job;
}

// Writes the job's file; its memory is freed on return.
Result<void> UnpackWriters::write_job(Job job, std::optional<EntryFailure>& failed) const {
  try {
    auto out = TRY(create_file(job.file, creation_, failed));
    if (auto ok = out.write(job.data, 0); !ok)
      return entry_error(job.file, ok.error(), ok.error(), failed);
    if (auto ok = out.extend_to(static_cast<std::int64_t>(job.data.size())); !ok) {
      return entry_error(job.file, ok.error(), ok.error(), failed);
    }
    return finish_file(out, job.file, creation_, failed);
  } catch (const std::bad_alloc&) {  // not to end the process from a thread
    return entry_error(job.file, "cannot write: out of memory", "cannot write: out of memory",
                       failed);
  }
}

void UnpackWriters::job_done(std::size_t bytes, const Result<void>& written,
                             std::optional<EntryFailure> failed) {
  std::lock_guard lock(mutex_);
  bytes_ -= bytes;
  if (!written && !failure_) {
    failure_ = written.error();
    failed_entry_ = std::move(failed);
    drop_queued();
  }
  if (waiting_ && (bytes_ <= *waiting_ || failure_)) work_done_.notify_one();
}

// Called with mutex_ held.
void UnpackWriters::drop_queued() {
  for (const auto& job : queue_) bytes_ -= job.bytes;
  queue_.clear();
  queued_bytes_ = 0;
}

}  // namespace pdx
