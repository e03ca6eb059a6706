# Warm connections and push's direct data link: the holder tells each run how it reached the
# host, so a warm push to a host it reached over TCP links to the agent directly, as a cold push
# does (its data intact), and a warm host behind a jump host still sends its data over ssh.
source "$(dirname "$0")/../lib/ssh_common.sh"

[[ $EUID -eq 0 ]] || skip "needs root (its own sshd)"
user=pdx001
start_sshd warmdirect 127.0.0.234 127.0.0.235 <<< "LogLevel INFO"
{
  echo "Host 127.0.0.235"
  echo "  ProxyJump $user@127.0.0.234"
  cat "$SCRATCH/warmdirect.ssh_config"
} > "$SCRATCH/config"
mkdir -m 700 "$SCRATCH/cm"
warm=(-F "$SCRATCH/config" -l "$user" -o ControlMaster=auto -o ControlPersist=60
  -o "ControlPath=$SCRATCH/cm/%r@%h:%p")

logins() { grep -c "Accepted publickey for $user" "$SCRATCH/warmdirect.log"; }
at_exit end_holders
dest=/tmp/$TEST_NAME.$$
at_exit "rm -rf $dest"
head -c 3000000 /dev/urandom > "$SCRATCH/payload"

# The first run leaves the holder with both sessions; the pushes after it log in nowhere.
run_pdx "${warm[@]}" -w '127.0.0.[234-235]' true
expect_status 0
before=$(logins)

# Over TCP: a push links directly (--data-via auto, the default), its data intact; sent to a
# port nobody listens on, the link is tried (and said to fail) before the data goes over ssh.
run_pdx "${warm[@]}" -w 127.0.0.234 push "$SCRATCH/payload" "$dest/auto/"
expect_status 0
expect_eq "$err" "" "a warm push's stderr"
cmp -s "$SCRATCH/payload" "$dest/auto/payload" || fail "warm push: $dest/auto/payload differs"
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PDX_TEST_DIRECT_VIA=127.0.0.1:$dead run_pdx "${warm[@]}" -w 127.0.0.234 push "$SCRATCH/payload" "$dest/tried/"
expect_status 0
expect_contains "$err" "pdx: warning: 127.0.0.234: no direct data link (" "a warm push: the link tried"
expect_contains "$err" "cannot connect to 127.0.0.1 port $dead" "a warm push: the link tried"
cmp -s "$SCRATCH/payload" "$dest/tried/payload" || fail "fallback: $dest/tried/payload differs"

# Behind the jump host: over ssh, no link tried.
PDX_TEST_DIRECT_VIA=127.0.0.1:$dead run_pdx "${warm[@]}" -w 127.0.0.235 push "$SCRATCH/payload" "$dest/jumped/"
expect_status 0
expect_eq "$err" "" "a warm push through the jump host: no link tried"
cmp -s "$SCRATCH/payload" "$dest/jumped/payload" || fail "jumped: $dest/jumped/payload differs"
expect_eq "$(logins)" "$before" "logins made by the warm pushes"
exit 0
