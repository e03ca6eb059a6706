# stdin and output at once over a slow link, where pdx's socket send buffer is full most of the
# time: libssh2 then leaves packets half sent, and pdx must repeat that very call before any other
# (a read's window adjust and a stdin write must not finish each other's packets). 32 MB go out
# and come back through `cat`; every byte must arrive, in order, within -u.
#
# Needs root and `ip netns`: pdx and an sshd run in two namespaces joined by a veth pair limited
# with tc (198.18.0.0/15, ARCHITECTURE.md, "Tests"); skipped (exit 0) otherwise.
#
# Before the pending-call rule it stalled every time at about 2 MB; before EOF waited for room in
# the socket it failed in half the runs near the end ("Unable to send transfer-window adjustment
# packet": libssh2 1.10 refuses the repeat of a half-sent EOF, whose packet lives on its stack).
source "$(dirname "$0")/../lib/common.sh"

skip() {
  echo "SKIP [$TEST_NAME]: $*"
  exit 0
}
[[ $EUID -eq 0 ]] || skip "needs root (network namespaces)"
command -v ip > /dev/null && command -v tc > /dev/null || skip "ip or tc missing"
[[ -x /usr/sbin/sshd ]] || skip "no /usr/sbin/sshd"

# A /30 of 198.18.0.0/15 per run, so that concurrent runs do not collide.
CLIENT_NS=pdxslowc$$ SERVER_NS=pdxslows$$
NET=$(( $$ % 16384 * 4 ))
PREFIX=198.$(( 18 + NET / 65536 )).$(( NET / 256 % 256 ))
CLIENT=$PREFIX.$(( NET % 256 + 1 )) SERVER=$PREFIX.$(( NET % 256 + 2 ))

cleanup() {
  [[ -f $SCRATCH/sshd.pid ]] && kill "$(cat "$SCRATCH/sshd.pid")" 2> /dev/null
  ip netns del "$CLIENT_NS" 2> /dev/null
  ip netns del "$SERVER_NS" 2> /dev/null
  rm -rf "$SCRATCH"
}
trap cleanup EXIT

ip netns add "$CLIENT_NS" 2> /dev/null || skip "ip netns unavailable"
ip netns add "$SERVER_NS" || skip "ip netns unavailable"
ip -n "$CLIENT_NS" link add veth0 type veth peer name veth0 netns "$SERVER_NS" || skip "no veth"
for side in "$CLIENT_NS $CLIENT" "$SERVER_NS $SERVER"; do
  set -- $side
  ip -n "$1" addr add "$2/30" dev veth0
  ip -n "$1" link set veth0 up
  ip -n "$1" link set lo up
  # 80 Mbit/s each way with a short queue, and MTU-sized packets (no TSO/GSO).
  ip netns exec "$1" tc qdisc add dev veth0 root tbf rate 80mbit burst 32kb latency 20ms ||
    skip "tc tbf unavailable"
  ip netns exec "$1" ethtool -K veth0 tso off gso off > /dev/null 2>&1
done
# A small socket send buffer for pdx: libssh2 then finds it full often and leaves packets half
# sent (per namespace: nothing else on this machine sees it).
ip netns exec "$CLIENT_NS" sysctl -q -w net.ipv4.tcp_wmem="4096 8192 8192" ||
  skip "cannot set tcp_wmem in a namespace"

ssh-keygen -q -t ed25519 -N '' -f "$SCRATCH/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$SCRATCH/id_ed25519"
cp "$SCRATCH/id_ed25519.pub" "$SCRATCH/authorized_keys"
chmod 755 "$SCRATCH"
cat > "$SCRATCH/sshd_config" << EOF
ListenAddress $SERVER
Port 22
HostKey $SCRATCH/host_key
AuthorizedKeysFile $SCRATCH/authorized_keys
PidFile $SCRATCH/sshd.pid
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
LogLevel ERROR
EOF
mkdir -p /run/sshd
ip netns exec "$SERVER_NS" /usr/sbin/sshd -f "$SCRATCH/sshd_config" -E "$SCRATCH/sshd.log" ||
  fail "sshd did not start: $(cat "$SCRATCH/sshd.log")"
echo "$SERVER $(cut -d' ' -f1-2 "$SCRATCH/host_key.pub")" > "$SCRATCH/known_hosts"
cat > "$SCRATCH/ssh_config" << EOF
Host *
  User root
  IdentityFile $SCRATCH/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $SCRATCH/known_hosts
  StrictHostKeyChecking yes
  BatchMode yes
EOF
for _ in $(seq 50); do
  ip netns exec "$CLIENT_NS" timeout 1 bash -c 'exec 3<> /dev/tcp/$0/22' "$SERVER" 2> /dev/null &&
    break
  sleep 0.1
done

# 32 MB of text lines, distinct so that a lost or repeated chunk shows.
seq -f '%031.0f' 1 1000000 > "$SCRATCH/input"
expected=$(sha256sum < "$SCRATCH/input" | cut -d' ' -f1)

start=$(date +%s)
ip netns exec "$CLIENT_NS" "$PDX" -F "$SCRATCH/ssh_config" -u "${PDX_SLOW_U:-50}" -w "$SERVER" cat \
  < "$SCRATCH/input" > "$SCRATCH/output" 2> "$SCRATCH/err"
status=$?
elapsed=$(( $(date +%s) - start ))
[[ $status -eq 0 ]] ||
  fail "status $status after ${elapsed}s, $(wc -l < "$SCRATCH/output") lines back: $(cat "$SCRATCH/err"); sshd: $(cat "$SCRATCH/sshd.log")"
got=$(sed "s/^$SERVER: //" "$SCRATCH/output" | sha256sum | cut -d' ' -f1)
expect_eq "$(wc -l < "$SCRATCH/output")" 1000000 "lines echoed"
expect_eq "$got" "$expected" "sha256 of the echoed stdin"
echo "32 MB each way in ${elapsed}s"
true
