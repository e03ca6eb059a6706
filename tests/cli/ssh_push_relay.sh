# pdx push --relay over ssh: 6 hosts (an account and home each), the agents linking up host to
# host on the addresses ssh reached them by (127.0.0.1 ... 127.0.0.6, each listening on its
# own); the same files and report as a star push.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
n=$(( CLUSTER_SIZE < 6 ? CLUSTER_SIZE : 6 ))
make_tree "$SCRATCH/src"
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
clean_on_hosts "$n" "relayed dir"

run_ssh -w "$hosts" push --relay "$SCRATCH/src" 'relayed dir/'
expect_status 0
expect_eq "$out" "pdx: 127.0.0.[1-$n]: 3.0 MiB in 8 files" "summary"
expect_eq "$err" "" "no warning: the chain linked up"
for i in $(seq "$n"); do
  home=$(home_of "$i")
  same_tree "$SCRATCH/src" "$home/relayed dir/src"
  no_leftovers "$home/relayed dir"
done

# Each agent listened on its own host's address: the one ssh reached it by.
"$PDX" -F "$CONFIG" -w "$hosts" push --relay "$SCRATCH/src/sub dir" 'relayed dir/again/' > /dev/null 2>&1 &
pid=$!
seen=""
for _ in $(seq 100); do
  seen=$(ss -Htlnp 2> /dev/null | grep '"pdx"' | awk '{print $4}' | sed 's/:[0-9]*$//' | sort -u | paste -sd,)
  [[ -n $seen ]] && break
  sleep 0.05
done
wait "$pid" || fail "the second relayed push failed"
[[ -z $seen || $seen == 127.0.0.* ]] || fail "an agent listened on $seen"
same_tree "$SCRATCH/src/sub dir" "$(home_of 3)/relayed dir/again/sub dir"
true
