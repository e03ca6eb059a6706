// pdsh's stderr line for a failed host, written as the host finishes, around another sink.
#include "core/pdsh.h"

namespace pdx {

namespace {

class PdshSink final : public OutputSink {
 public:
  PdshSink(std::unique_ptr<OutputSink> inner, std::vector<std::string> labels, PdshNames names,
           PdshRcmd rcmd, int err_fd)
      : inner_(std::move(inner)),
        labels_(std::move(labels)),
        names_(std::move(names)),
        rcmd_(rcmd),
        err_fd_(err_fd) {}

  void output(std::size_t index, Stream stream, std::string_view bytes) override {
    inner_->output(index, stream, bytes);
  }

  // After the inner sink wrote the host's last line, so the failure line comes after it.
  void finished(std::size_t index, const HostResult& result) override {
    inner_->finished(index, result);
    write_all(err_fd_, pdsh_failure_lines(names_, labels_[index], result, rcmd_));
  }

  void close() override { inner_->close(); }

 private:
  std::unique_ptr<OutputSink> inner_;
  std::vector<std::string> labels_;
  PdshNames names_;
  PdshRcmd rcmd_;
  int err_fd_;
};

}  // namespace

std::unique_ptr<OutputSink> make_pdsh_sink(std::unique_ptr<OutputSink> inner,
                                           std::vector<std::string> labels, PdshNames names,
                                           PdshRcmd rcmd, int err_fd) {
  return std::make_unique<PdshSink>(std::move(inner), std::move(labels), std::move(names), rcmd,
                                    err_fd);
}

}  // namespace pdx
