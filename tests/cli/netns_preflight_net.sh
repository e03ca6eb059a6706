# pdx preflight --net on hosts with real links (scripts/netns-cluster.sh, 100 Mbit/s each way),
# host 2's sending shaped down to 10 Mbit/s: host 2 is named, with its figures, in the ring and
# in the round to the master (host 1), and neither check is called loopback.
source "$(dirname "$0")/../lib/netns_common.sh"

netns_start 3 100mbit
"$cluster" host "$dir" 2 tc qdisc change dev eth0 root tbf rate 10mbit burst 16kb latency 50ms ||
  fail "cannot shape host 2's link"
out=$("$cluster" run "$dir" "$PDX" -F "$dir/ssh_config" -w "^$dir/hostfile" preflight \
  --no-ssh-check --net --net-time 2 --master 198.18.0.1 --python /usr/bin/python3 2>&1)
status=$?
expect_status 1
expect_contains "$out" "ok   net ring median "
expect_contains "$out" "FAIL net ring "
expect_contains "$out" " to 198.18.0.3, RTT "
grep -q '^FAIL net ring .*: 198.18.0.2 (median ' <<< "$out" || fail "host 2 not named: $out"
grep -q '^FAIL net to the master .* to 198.18.0.1, RTT .*: 198.18.0.2 (median ' <<< "$out" ||
  fail "host 2 not named in the round to the master: $out"
expect_contains "$out" "ok   net to the master median "
[[ $out != *loopback* ]] || fail "real links called loopback: $out"
true
