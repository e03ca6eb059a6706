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
# push_killing N: the push to the five hosts, host N's agent killed once it has read 16 MiB.
push_killing() {
  clean_on_hosts 5 "bridged dir"
  run_killing $((16 << 20)) -u "pdx00$1" -f -- '--relay=' \
    --run "$PDX" -F "$CONFIG" -w "$hosts" push --relay "$SCRATCH/huge" 'bridged dir/' < /dev/null
  expect_status 1
  expect_contains "$err" "pdx: 127.0.0.$1: killed by signal KILL" "the killed host, alone, on one line"
  expect_lines "$err" 2 "the killed host and the warning of the one that bridged"
}

# whole_but N: every host but N has the file whole and no temporary file; N none of it.
whole_but() {
  local i
  for i in 1 2 3 4 5; do
    if (( i == $1 )); then
      [[ ! -e $(home_of "$i")/bridged\ dir/huge ]] || fail "host $i: a huge under its final name"
      continue
    fi
    cmp -s "$SCRATCH/huge" "$(home_of "$i")/bridged dir/huge" || fail "host $i: huge is not whole"
    no_leftovers "$(home_of "$i")/bridged dir"
  done
}

push_killing 3
expect_bridged "$err" 127.0.0.2
expect_eq "$out" "pdx: 127.0.0.[1-2,4-5]: 64.0 MiB in 1 file" "the others complete"
whole_but 3

# The head's agent killed: pdx bridges around it, from here, to the second host.
push_killing 1
grep -Eqx "pdx: warning: 127.0.0.1: the relay's head is gone; from here, bridged around it to 127.0.0.2 port [0-9]+ from offset [0-9]+" <<< "$err" ||
  fail "pdx bridging around the head: [$err]"
expect_eq "$out" "pdx: 127.0.0.[2-5]: 64.0 MiB in 1 file" "the others complete"
whole_but 1
true
