#include "distribute/pull/pull_receiver.h"

#include <utility>

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

}  // namespace

void PullReceiver::take(std::string_view bytes) {
  bytes_ += bytes.size();
  if (failed_) return;
  if (unpack_) return feed(bytes);
  head_.append(bytes);
  auto before = tar_preamble(head_);
  if (!before) return;  // more to come
  if (*before) {
    failed_ = Error{shell_preamble_said(head_, *before)};
    return;
  }
  feed(std::exchange(head_, {}));
}

void PullReceiver::feed(std::string_view bytes) {
  if (!unpack_) {
    auto started = UnpackProcess::start(unpacker_, directory_);
    if (!started) {
      failed_ = Error{started.error()};
      return;
    }
    unpack_.emplace(std::move(*started));
  }
  if (unpack_->write(bytes)) return;
  auto done = unpack_->finish();  // the child stopped reading: its message says why
  failed_ = Error{done ? "unpacking stopped early" : done.error()};
}

void PullReceiver::end() {
  if (!unpack_ && !failed_ && !head_.empty()) {
    if (std::size_t before = text_before_empty_tar(head_))
      failed_ = Error{shell_preamble_said(head_, before)};
    else
      feed(std::exchange(head_, {}));
  }
  if (unpack_ && !failed_) {
    if (auto done = unpack_->finish(); !done) failed_ = Error{done.error()};
  }
  unpack_.reset();
}

void PullReceiver::abandon() {
  if (unpack_) (void)unpack_->finish();
  unpack_.reset();
}

}  // namespace pdx
