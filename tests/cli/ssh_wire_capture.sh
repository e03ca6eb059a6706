# No plaintext on the data links, seen as anyone on the network would see it: tcpdump captures
# the loopback interface, on the ports the agents listen on (--relay-ports), while a file holding
# a known marker is pushed as a star, pushed with --relay (pdx to the head, then host to host),
# synced, and pulled back, every stream over its direct link (--data-via direct: a host that
# cannot link fails). The capture holds the streams' bytes, and neither the marker nor the file's
# name is in it.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host and a packet capture (run as root)"
command -v tcpdump > /dev/null || skip "no tcpdump (scripts/deps.sh installs it)"
n=$(( CLUSTER_SIZE < 4 ? CLUSTER_SIZE : 4 ))
(( n >= 2 )) || skip "needs 2 hosts"
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
dir="capture $TEST_NAME"
clean_on_hosts "$n" "$dir"

mkdir -p "$SCRATCH/src"
marker="PDX-MARKER-$RANDOM-$RANDOM-cleartext"
for _ in $(seq 20000); do echo "$marker"; done > "$SCRATCH/src/marked-name"
head -c 1000000 /dev/urandom >> "$SCRATCH/src/marked-name"
size=$(stat -c %s "$SCRATCH/src/marked-name")

# The agents listen on 16 ports of their own, each host on its own address; only those are
# captured (the ssh sessions are OpenSSH's and libssh2's business).
low=$(( 42000 + RANDOM % 2000 * 8 ))
high=$(( low + 15 ))
tcpdump -i lo -U -s 0 -B 65536 -w "$SCRATCH/wire.pcap" "tcp portrange $low-$high" 2> "$SCRATCH/tcpdump.err" &
dump=$!
at_exit "kill $dump 2> /dev/null"
for _ in $(seq 100); do grep -q 'listening on' "$SCRATCH/tcpdump.err" && break; sleep 0.05; done
grep -q 'listening on' "$SCRATCH/tcpdump.err" || fail "tcpdump did not start: $(cat "$SCRATCH/tcpdump.err")"

links=(--data-via direct --relay-ports "$low-$high")
run_ssh -w "$hosts" push "${links[@]}" "$SCRATCH/src" "$dir/star/"
expect_status 0
run_ssh -w "$hosts" push --relay "${links[@]}" "$SCRATCH/src" "$dir/relay/"
expect_status 0
expect_eq "$err" "" "the chain linked up"
run_ssh -w "$hosts" sync "${links[@]}" "$SCRATCH/src" "$dir/sync/"
expect_status 0
run_ssh -w "$hosts" pull "${links[@]}" "$dir/star/src/marked-name" "$SCRATCH/pulled"
expect_status 0
for i in $(seq "$n"); do
  for at in star relay sync; do
    cmp -s "$SCRATCH/src/marked-name" "$(home_of "$i")/$dir/$at/src/marked-name" || fail "host $i: $at differs"
  done
done
[[ $(find "$SCRATCH/pulled" -name marked-name -type f | wc -l) -eq $n ]] || fail "not pulled from every host"

kill -INT "$dump"
wait "$dump"
captured=$(stat -c %s "$SCRATCH/wire.pcap")
# Star, sync and pull: a copy per host; the relay: one per link. All of it crossed these ports.
(( captured > (3 * n + n - 1) * size )) ||
  fail "the capture holds $captured bytes: the streams did not go over the links ($(tail -3 "$SCRATCH/tcpdump.err" | paste -sd' '))"
! grep -a -q "$marker" "$SCRATCH/wire.pcap" || fail "the marker crossed a link in clear"
! grep -a -q "marked-name" "$SCRATCH/wire.pcap" || fail "a file's name crossed a link in clear"
true
