# pdx push --extract over ssh: the parts of `pdx pack --split` streamed once and unpacked on 8
# hosts as they arrive; no copy of the archive left on the hosts.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 8 ? CLUSTER_SIZE : 8 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
clean_on_hosts "$n" extracted
make_tree "$SCRATCH/src"
(cd "$SCRATCH" && "$PDX" pack src -o data.tar.zst --split 1M) > /dev/null || fail "pack failed"

run_ssh -w "$hosts" push --extract "$SCRATCH"/data.tar.zst.part-* 'extracted'
expect_status 0
expect_contains "$out" ": 3.0 MiB in 8 files"
for i in $(seq "$n"); do
  home=$(home_of "$i")
  same_tree "$SCRATCH/src" "$home/extracted/src"
  [[ -z $(find "$home/extracted" -name '*.part-*') ]] || fail "host $i: parts left on the host"
done
