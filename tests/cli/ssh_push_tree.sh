# pdx push over ssh: a tree with awkward names to 8 hosts, each its own account and home; the
# agent deployed once per host; a re-run sends nothing; a 1 MiB-mode file into DEST/.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 8 ? CLUSTER_SIZE : 8 ))
make_tree "$SCRATCH/src"
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
sha=$(sha256sum < "$(deployed_agent)" | cut -c1-64)
clean_on_hosts "$n" "pushed dir"

run_ssh -w "$hosts" push "$SCRATCH/src" 'pushed dir/'
expect_status 0
expect_contains "$out" ": 3.0 MiB in 8 files"
expect_lines "$out" 1 "summary"
for i in $(seq "$n"); do
  home=$(home_of "$i")
  same_tree "$SCRATCH/src" "$home/pushed dir/src"
  no_leftovers "$home/pushed dir"
  [[ -x $home/.cache/pdx/$sha/pdx ]] || fail "host $i: no agent deployed"
done

run_ssh -w "$hosts" push "$SCRATCH/src" 'pushed dir/'
expect_status 0
expect_contains "$out" ": up to date"
