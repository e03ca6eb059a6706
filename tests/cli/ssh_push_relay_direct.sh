# pdx push --relay over ssh: the chain's head takes its stream over a direct link from pdx
# (sealed records, tests/lib/tcp_proxy.py between them), not through its ssh channel; a byte
# altered on that link fails the head alone, with one line, nothing half-written there, and pdx
# bridges around it to the rest of the chain; a link that cannot be made: the head's stream over
# ssh, said once (--data-via direct: the head fails, the others are sent from here);
# --data-via ssh: the old way.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
(( CLUSTER_SIZE >= 4 )) || skip "needs 4 hosts, the cluster has $CLUSTER_SIZE"
h=$(host 1)
hosts=$(head -n 4 "$HOSTFILE" | paste -sd,)
dir="relay direct $TEST_NAME"
clean_on_hosts 4 "$dir"
mkdir -p "$SCRATCH/src"
marker="PDX-MARKER-$RANDOM-$RANDOM-cleartext"
for _ in $(seq 2000); do echo "$marker"; done > "$SCRATCH/src/marked"
head -c 3000000 /dev/urandom >> "$SCRATCH/src/marked"

# whole_on SUBDIR HOSTS...: each of HOSTS has src/ whole under DEST/SUBDIR, no temporary left.
whole_on() {
  local sub=$1 i
  shift
  for i in "$@"; do
    same_tree "$SCRATCH/src" "$(home_of "$i")/$dir/$sub/src"
    no_leftovers "$(home_of "$i")/$dir"
  done
}

# The head's stream through the proxy: all of it went there (the capture), sealed (no marker).
direct_proxy "$h" --capture "$SCRATCH/capture"
PDX_TEST_DIRECT_VIA=127.0.0.1:$proxy_port run_ssh -w "$hosts" push --relay --data-via direct --relay-ports "$agent_port" "$SCRATCH/src" "$dir/linked/"
expect_status 0
expect_eq "$err" "" "no warning"
whole_on linked 1 2 3 4
size=$(stat -c %s "$SCRATCH/capture" 2> /dev/null || echo 0)
((size > 3000000)) || fail "the capture holds $size bytes: the head's stream did not go over its link"
! grep -q "$marker" "$SCRATCH/capture" || fail "the marker went over the head's link in clear"

# A byte altered on the head's link: the head fails on one line, the rest of the chain is
# bridged to from here and complete.
head -c 8000000 /dev/urandom > "$SCRATCH/big"
direct_proxy "$h" --flip 2000000
PDX_TEST_DIRECT_VIA=127.0.0.1:$proxy_port run_ssh -w "$hosts" push --relay --relay-ports "$agent_port" "$SCRATCH/big" "$dir/flipped/"
expect_status 1
expect_contains "$err" "pdx: $h: " "the head named"
expect_contains "$err" "failed its check" "why"
grep -Eqx "pdx: warning: $h: the relay's head is gone; from here, bridged around it to 127.0.0.2 port [0-9]+ from offset [0-9]+" <<< "$err" ||
  fail "pdx bridging around the head: [$err]"
expect_lines "$err" 2 "the head's line and the bridge's"
[[ ! -e $(home_of 1)/$dir/flipped/big ]] || fail "the head wrote the file"
no_leftovers "$(home_of 1)/$dir"
for i in 2 3 4; do
  cmp -s "$SCRATCH/big" "$(home_of "$i")/$dir/flipped/big" || fail "host $i: big is not whole"
done

# No link to the head (pdx sent to a port nobody listens on): its stream over ssh, said once.
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PDX_TEST_DIRECT_VIA=127.0.0.1:$dead run_ssh -w "$hosts" push --relay "$SCRATCH/src" "$dir/fallback/"
expect_status 0
expect_eq "$err" "pdx: warning: $h: no direct data link (cannot connect to 127.0.0.1 port $dead: Connection refused); sent over ssh" "the fallback's line"
whole_on fallback 1 2 3 4
# ... and with --data-via direct the head fails, and the chain is sent from here over direct
# links too: none can be made (every link goes to the dead port), so every host fails, and
# nothing crossed ssh.
PDX_TEST_DIRECT_VIA=127.0.0.1:$dead run_ssh -w "$hosts" push --relay --data-via direct "$SCRATCH/src" "$dir/required/"
expect_status 1
expect_contains "$err" "the relay could not link up ($h: no direct data link: cannot connect to 127.0.0.1 port $dead" "the chain called off"
expect_contains "$err" "pdx: 127.0.0.[1-4]: no direct data link: cannot connect to 127.0.0.1 port $dead" "every host"
for i in 1 2 3 4; do
  [[ ! -e $(home_of "$i")/$dir/required/src ]] || fail "host $i, which could not link, was written to"
done

# --data-via ssh: the head's stream through its ssh channel, nothing through the proxy.
direct_proxy "$h" --capture "$SCRATCH/capture-ssh"
PDX_TEST_DIRECT_VIA=127.0.0.1:$proxy_port run_ssh -w "$hosts" push --relay --data-via ssh --relay-ports "$agent_port" "$SCRATCH/src" "$dir/over ssh/"
expect_status 0
expect_eq "$err" "" "no warning over ssh"
whole_on "over ssh" 1 2 3 4
[[ ! -s $SCRATCH/capture-ssh ]] || fail "--data-via ssh went through the proxy"
true
