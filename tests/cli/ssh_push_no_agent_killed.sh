# pdx SIGKILLed in the middle of a push --no-agent: no host has a file under its final name
# (the host's tar fills a hidden directory, and files are moved into place only once it is
# whole), and the hidden directory goes when the host's sh sees its input end. A re-run
# completes.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 4 ? CLUSTER_SIZE : 4 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
dest="killed-no-agent-$(basename "$SCRATCH")"
clean_on_hosts "$n" "$dest"
mkdir "$SCRATCH/src"
for f in a b c d; do head -c 67108864 /dev/urandom > "$SCRATCH/src/$f"; done

kill_push_midway "$n" "$dest" -w "$hosts" push --no-agent "$SCRATCH/src" "$dest/"

run_ssh -w "$hosts" push --no-agent "$SCRATCH/src" "$dest/"
expect_status 0
expect_contains "$out" ": 256.0 MiB in 4 files"
same_tree_on_hosts "$n" "$dest"
