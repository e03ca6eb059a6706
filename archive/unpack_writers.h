#pragma once
// Writing unpacked regular files: what a file is to be (FileToWrite, resolved from its entry on
// the reading thread), the steps every file goes through (create_file, finish_file), and
// UnpackWriters, threads that write whole small files held in memory while the reading thread
// parses on -- the kernel's work per file (create, write, link) is most of an unpack of many
// small files, and tar does it on one thread.
#include <sys/types.h>
#include <time.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "archive/entry_failure.h"
#include "archive/unpack_file.h"
#include "base/result.h"

namespace pdx {

/// A directory files are unpacked into, held open (and closed when the last holder drops it:
/// the reading thread's cache of directories, or a file waiting to be written in it).
class UnpackDirectory {
 public:
  /// Takes ownership of the open descriptor `fd`.
  explicit UnpackDirectory(int fd) : fd_(fd) {}
  ~UnpackDirectory();
  UnpackDirectory(const UnpackDirectory&) = delete;
  UnpackDirectory& operator=(const UnpackDirectory&) = delete;

  int fd() const { return fd_; }
  /// The group of the files created here, once one was (it depends on the directory's
  /// set-group-ID bit and on the filesystem's grpid mount option). Safe from any thread: every
  /// thread that learns it learns the same.
  std::optional<gid_t> file_gid() const;
  void learn_file_gid(gid_t gid);
  /// After the directory's mode may have changed.
  void forget_file_gid();

 private:
  int fd_;
  std::atomic<std::int64_t> file_gid_{-1};  // -1: not known
};

/// A regular file to unpack, everything its entry says resolved on the reading thread (owner
/// names looked up, set-id bits dropped as libarchive does), so that writing it needs nothing of
/// libarchive's.
struct FileToWrite {
  struct Owner {
    uid_t uid;
    gid_t gid;
  };
  std::shared_ptr<UnpackDirectory> directory;
  std::string base;            // its name in `directory`
  std::string temp_name;       // unique in `directory`, for UnpackFile::create
  std::string origin;          // "PART: entry NAME" (as the archive names it), for errors
  std::string entry;           // NAME, as the archive names it: an EntryFailure's
  std::string name;            // its name under the unpack directory, for errors of commit
  mode_t mode = 0;             // permission and set-id bits to end with
  std::optional<Owner> owner;  // set when run as root
  std::optional<timespec> atime;
  std::optional<timespec> mtime;
};

/// How every file of a run is created: its way of hiding, the process's umask, and the owner a
/// new file gets.
struct FileCreation {
  Hiding hiding = Hiding::temp_name;
  mode_t umask = 022;
  uid_t uid = 0;
};

/// An entry's failure: its Error (the message `shown`, after the file's origin) and, into
/// `failed`, the entry and `reason` apart (archive/entry_failure.h).
Error entry_error(const FileToWrite& file, const std::string& shown, const std::string& reason,
                  std::optional<EntryFailure>& failed);

/// Creates the file out of sight (UnpackFile::create). An Error: "ORIGIN: cannot create: ...",
/// the entry apart into `failed`.
Result<UnpackFile> create_file(const FileToWrite& file, const FileCreation& creation,
                               std::optional<EntryFailure>& failed);

/// Sets owner (root only), mode and times on the written file, each only where creating it did
/// not already (best effort, as libarchive does: a failure is no error, but set-id bits are kept
/// only for an owner that was set), then gives it its name (UnpackFile::commit). An Error:
/// "NAME: cannot write: ..." or "NAME: cannot put in place: ...", the entry apart into `failed`.
Result<void> finish_file(UnpackFile& out, const FileToWrite& file, const FileCreation& creation,
                         std::optional<EntryFailure>& failed);

/// Threads writing whole files whose data the caller read into memory, in any order, while the
/// caller goes on. Memory stays bounded: write() waits, where a file would take the files queued
/// and being written past `max_bytes`, until half of that is free. Owned and called by one
/// thread, the caller.
///
/// An idle thread is woken for a batch of files, not for each (a wake-up costs as much as
/// writing a small file): when the files queued hold some hundreds of KiB, at wake(), and at
/// wait(). Until then, a few files may wait in the queue.
///
/// The first failure stops the writing: the files still queued are dropped (nothing of them is
/// left), and the next write() or wait() returns that failure's Error. The destructor drops what
/// is queued, lets the files being written finish, and joins the threads.
class UnpackWriters {
 public:
  UnpackWriters(unsigned threads, std::size_t max_bytes, FileCreation creation);
  ~UnpackWriters();
  UnpackWriters(const UnpackWriters&) = delete;
  UnpackWriters& operator=(const UnpackWriters&) = delete;

  /// Queues `file`, whose content is `data` (the gaps of a sparse entry zero-filled); waits first
  /// while the queue is full. An Error: the first failure of a file queued before.
  Result<void> write(FileToWrite file, std::vector<char> data);
  /// Wakes idle threads for the files queued so far, however few. For the caller to call before
  /// it may wait (for its input, say), so that no file is left waiting with it.
  void wake();
  /// Waits until every queued file is written, or dropped after a failure and those being
  /// written are done; an Error: the first failure.
  Result<void> wait();
  /// The first failure's entry, where it was one's that could not be created, written or put
  /// in place.
  std::optional<EntryFailure> failed_entry();

 private:
  struct Job {
    FileToWrite file;
    std::vector<char> data;
    std::size_t bytes;  // counted against max_bytes
  };
  void stop();
  void work();
  std::optional<Job> next_job();
  Result<void> write_job(Job job, std::optional<EntryFailure>& failed) const;
  void job_done(std::size_t bytes, const Result<void>& written, std::optional<EntryFailure> failed);
  void drop_queued();
  void wake_for_queued();

  const std::size_t max_bytes_;
  const FileCreation creation_;
  std::mutex mutex_;
  std::condition_variable work_ready_;  // a worker waits for a job, or for stopping
  std::condition_variable work_done_;   // the caller waits for room, or for all done
  std::deque<Job> queue_;               // guarded by mutex_, as all below
  std::size_t bytes_ = 0;               // of the jobs queued and being written
  std::size_t queued_bytes_ = 0;        // of the jobs queued
  std::size_t idle_ = 0;                // workers waiting for a job
  std::optional<std::size_t> waiting_;  // the caller's, until bytes_ is down to it
  bool stopping_ = false;
  std::optional<std::string> failure_;        // the first
  std::optional<EntryFailure> failed_entry_;  // its entry, where it was one's
  std::vector<std::thread> threads_;
};

}  // namespace pdx
