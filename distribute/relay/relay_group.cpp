#include "distribute/relay/relay_group.h"

#include "agent/relay_link.h"
#include "core/hostset.h"
#include "distribute/host_outcome.h"

namespace pdx {

RelayGroup::RelayGroup(std::vector<std::string> labels, const RelayOptions& options, int stream,
                       std::uint64_t bytes, Broadcast::Options head, Broadcast::Options star)
    : labels_(std::move(labels)),
      stream_(stream),
      bytes_(bytes),
      star_options_(std::move(star)),
      ended_(labels_.size(), false) {
  auto secret = make_relay_secret();
  if (!secret) {
    called_off_ = printable(secret.error());
    return;
  }
  chain_ = std::make_unique<Chain>(labels_, std::move(*secret), options, stream_, std::move(head));
}

RelayGroup::~RelayGroup() {
  star_.reset();
  chain_.reset();
}

boost::asio::awaitable<std::optional<RelayGroup::Ran>> RelayGroup::relayed(
    Session& session, const Job& job, std::size_t j, const std::string& relay, DataVia via,
    HeldAgent* held, StopSignal& stop) {
  if (!chain_) co_return std::nullopt;
  if (j == 0 && direct_wanted(via, session, bytes_)) chain_->head_over_link(via == DataVia::direct);
  ChainReply reply(*chain_, j);
  ChainInput input(*chain_, j);
  ExecRequest request{relay, job.env, job.command_timeout, &input};
  RelayedHost& host = reply.host();
  host.reply.result = co_await run_relay_mode(session, request, reply, held, stop);
  Failure failure = host.reply.result.failure;
  chain_->ended(j, "", failure == Failure::none || failure == Failure::protocol);
  std::string reason, not_linked = j == 0 ? chain_->head_not_linked() : "";
  if (chain_->called_off(reason) && host.reply.result.failure == Failure::none) {
    if (not_linked.empty() || via != DataVia::direct) co_return std::nullopt;
    Ran failed;
    failed.error = "no direct data link: " + not_linked;
    co_return failed;
  }
  co_return Ran{std::move(host.reply), std::move(host.error), forwarded_said(host.forward_error),
                std::move(not_linked)};
}

// The broadcast is started by the first member to ask, with the line that says so.
Result<Broadcast*> RelayGroup::star_source() {
  std::lock_guard lock(mutex_);
  if (!star_) {
    std::string reason;
    if (chain_) chain_->called_off(reason);
    auto started = Broadcast::start(stream_, labels_.size(), star_options_);
    if (!started) return Error{started.error()};
    star_ = std::move(*started);
    for (std::size_t k = 0; k < ended_.size(); ++k)
      if (ended_[k]) star_->finish(k);
    if (!called_off_) called_off_ = printable(reason);
  }
  return star_.get();
}

void RelayGroup::ended(std::size_t j) {
  std::lock_guard lock(mutex_);
  ended_[j] = true;
  if (star_) star_->finish(j);
  if (chain_) chain_->ended(j, "its host ended");
}

std::optional<RelayGroup::CalledOff> RelayGroup::called_off() const {
  std::lock_guard lock(mutex_);
  if (!called_off_) return std::nullopt;
  return CalledOff{labels_, *called_off_};
}

std::optional<std::string> RelayGroup::head_bridged() {
  std::string said = chain_ ? chain_->head_bridged() : "";
  if (said.size() < 2) return std::nullopt;  // ": ..."
  return labels_[0] + ": the relay's head is gone; from here, " + printable(said.substr(2));
}

std::string called_off_line(const std::vector<std::string>& hosts, const std::string& reason) {
  return fold_names(hosts) + ": the relay could not link up (" + reason + "); sending from here";
}

std::string forwarded_said(std::string_view said) {
  if (said.size() <= kMaxForwarded) return printable(said);
  return printable(said.substr(0, kMaxForwarded)) + "...";
}

}  // namespace pdx
