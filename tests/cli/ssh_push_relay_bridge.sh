# pdx push --relay over ssh with a host's agent killed mid-chain (5 hosts, an account and home
# each, the third killed): the second links to the fourth, which resumes from the offset it
# holds; the killed host alone is reported failed, on one line, the second says it bridged in a
# warning, and the other four have the file whole, with no temporary file left. Then the head's
# agent killed: pdx bridges around it.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
(( CLUSTER_SIZE >= 5 )) || skip "needs 5 hosts, the cluster has $CLUSTER_SIZE"
head -c $((64 << 20)) /dev/urandom > "$SCRATCH/huge"
hosts=$(head -n 5 "$HOSTFILE" | paste -sd,)
clean_on_hosts 5 "bridged dir"

"$PDX" -F "$CONFIG" -w "$hosts" push --relay "$SCRATCH/huge" 'bridged dir/' \
  > "$SCRATCH/out" 2> "$SCRATCH/err" < /dev/null &
pdx_pid=$!
kill_once_read $((16 << 20)) -u pdx003 -f -- '--relay='  # once the third host's agent read 16 MiB
[[ -n $killed ]] || fail "no agent of the third host to kill"
wait "$pdx_pid"
status=$?
out=$(cat "$SCRATCH/out") err=$(cat "$SCRATCH/err")
expect_status 1
expect_contains "$err" "pdx: 127.0.0.3: killed by signal KILL" "the killed host, alone, on one line"
expect_bridged "$err" 127.0.0.2
expect_lines "$err" 2 "the killed host and the second's warning"
expect_eq "$out" "pdx: 127.0.0.[1-2,4-5]: 64.0 MiB in 1 file" "the others complete"
for i in 1 2 4 5; do
  cmp -s "$SCRATCH/huge" "$(home_of "$i")/bridged dir/huge" || fail "host $i: huge is not whole"
  no_leftovers "$(home_of "$i")/bridged dir"
done
[[ ! -e $(home_of 3)/bridged\ dir/huge ]] || fail "host 3: a huge under its final name"

# The head's agent killed: pdx bridges around it, from here, to the second host.
clean_on_hosts 5 "bridged dir"
"$PDX" -F "$CONFIG" -w "$hosts" push --relay "$SCRATCH/huge" 'bridged dir/' \
  > "$SCRATCH/out" 2> "$SCRATCH/err" < /dev/null &
pdx_pid=$!
kill_once_read $((16 << 20)) -u pdx001 -f -- '--relay='
[[ -n $killed ]] || fail "no agent of the head to kill"
wait "$pdx_pid"
status=$?
out=$(cat "$SCRATCH/out") err=$(cat "$SCRATCH/err")
expect_status 1
expect_contains "$err" "pdx: 127.0.0.1: killed by signal KILL" "the killed head, alone"
grep -Eqx "pdx: warning: 127.0.0.1: the relay's head is gone; from here, bridged around it to 127.0.0.2 port [0-9]+ from offset [0-9]+" <<< "$err" ||
  fail "pdx bridging around the head: [$err]"
expect_lines "$err" 2 "the killed head and pdx's warning"
expect_eq "$out" "pdx: 127.0.0.[2-5]: 64.0 MiB in 1 file" "the others complete"
for i in 2 3 4 5; do
  cmp -s "$SCRATCH/huge" "$(home_of "$i")/bridged dir/huge" || fail "host $i: huge is not whole"
  no_leftovers "$(home_of "$i")/bridged dir"
done
[[ ! -e $(home_of 1)/bridged\ dir/huge ]] || fail "host 1: a huge under its final name"
true
