# pdx push --relay=tree:2 over ssh: 7 hosts (an account and home each) as a tree of fan-out 2
# (127.0.0.1 -> .2 .3, .2 -> .4 .5, .3 -> .6 .7), the agents linking up on the addresses ssh
# reached them by; every host has the tree of files, with the report of a star push. A --relay
# tree that cannot link up is sent from here, saying so. A --relay value that is neither chain
# nor tree:K (K 2-16) is a usage error before any host is touched.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
(( CLUSTER_SIZE >= 7 )) || skip "needs 7 hosts, the cluster has $CLUSTER_SIZE"
make_tree "$SCRATCH/src"
hosts=$(head -n 7 "$HOSTFILE" | paste -sd,)
clean_on_hosts 7 "tree dir"

run_ssh -w "$hosts" push --relay=tree:2 "$SCRATCH/src" 'tree dir/'
expect_status 0
expect_eq "$out" "pdx: 127.0.0.[1-7]: 3.0 MiB in 8 files" "summary"
expect_eq "$err" "" "no warning: the tree linked up"
for i in $(seq 7); do
  home=$(home_of "$i")
  same_tree "$SCRATCH/src" "$home/tree dir/src"
  no_leftovers "$home/tree dir"
done

# It is a tree: an inner host's agent holds three relay links at once (one from its parent, one
# to each child), where a chain's hold two at most. ssh's own connections are sshd's and pdx's
# here, to and from the cluster's port: not counted.
head -c $((64 << 20)) /dev/urandom > "$SCRATCH/big"
"$PDX" -F "$CONFIG" -w "$hosts" push --relay=tree:2 "$SCRATCH/big" 'tree dir/big/' > "$SCRATCH/out" 2>&1 &
pid=$!
most=0
while kill -0 "$pid" 2> /dev/null; do
  links=$(ss -Htnp state established 2> /dev/null | grep '"pdx"' | grep -v ":$CLUSTER_PORT " |
    grep -o 'pid=[0-9]*' | sort | uniq -c | sort -rn | awk 'NR == 1 {print $1}')
  (( ${links:-0} > most )) && most=${links:-0}
  (( most >= 3 )) && break
  sleep 0.02
done
wait "$pid" || fail "the big relayed push failed: $(cat "$SCRATCH/out")"
(( most >= 3 )) || fail "no agent forwarded to two hosts (at most $most relay links in one)"
for i in $(seq 7); do cmp -s "$SCRATCH/big" "$(home_of "$i")/tree dir/big/big" || fail "host $i: big differs"; done

# One port for every agent, on one address: only one can listen, so the tree cannot link up;
# the push goes from here, and says so once; from here too, the hosts that cannot listen for a
# direct link get their data over ssh, said once.
port=$(( 20000 + RANDOM % 20000 ))
run_ssh -w "$hosts" push --relay=tree:2 --relay-bind 127.0.0.1 --relay-ports "$port" \
  "$SCRATCH/src" 'tree dir/star/'
expect_status 0
expect_eq "$out" "pdx: 127.0.0.[1-7]: 3.0 MiB in 8 files" "sent from here"
expect_contains "$err" "pdx: warning: 127.0.0.[1-7]: the relay could not link up (127.0.0."
expect_contains "$err" "no direct data link (" "the star's fallback"
expect_eq "$(grep -c warning <<< "$err")" 2 "each said once"
same_tree "$SCRATCH/src" "$(home_of 6)/tree dir/star/src"

# Bad values: one line, exit 2, nothing sent. The value goes only after '=' (after a space it
# would be a SRC).
for bad in tree:1 tree:17 tree: tree:x star; do
  run_ssh -w "$hosts" push --relay="$bad" "$SCRATCH/src" 'tree bad/'
  expect_status 2
  expect_eq "$err" "pdx: error: --relay: '$bad' is neither chain nor tree:K with K in 2-16" "$bad"
done
[[ ! -e $(home_of 1)/tree\ bad ]] || fail "a usage error wrote something"
true
