# pdx push --no-agent --extract over ssh, its stream cut short: each host's sh counts the bytes it
# receives against the parts' size and places nothing of a cut archive, even one cut at an
# entry's end (which GNU tar takes as whole), saying so in one line; with pdx SIGKILLed midway,
# nothing is under its final name and the hidden directory goes. The whole archive goes in.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 3 ? CLUSTER_SIZE : 3 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
dest="no-agent-extract-cut-$(basename "$SCRATCH")"  # the homes may be shared by concurrent runs
clean_on_hosts "$n" "$dest"
mkdir -p "$SCRATCH/src"
for f in a b c d; do head -c 33554432 /dev/urandom > "$SCRATCH/src/$f"; done
tar -c --format=ustar -f "$SCRATCH/whole.tar" -C "$SCRATCH" src || fail "tar failed"
# src/'s header, then a's header and data: a whole entry, no more.
head -c $(( 512 + 512 + 33554432 )) "$SCRATCH/whole.tar" > "$SCRATCH/part-0"

# /proc/self/mem: a regular file (of size 0) whose first read fails (EIO), as a failing disk's.
run_ssh -w "$hosts" push --no-agent --extract "$SCRATCH/part-0" /proc/self/mem "$dest"
expect_status 1
expect_eq "$out" "" "summary"
expect_contains "$err" $'\npdx: error: /proc/self/mem: read failed: Input/output error'
expect_contains "$err" ": the stream from pdx was cut short; nothing was placed"
expect_lines "$err" 3 "stderr"
for i in $(seq "$n"); do
  [[ -z $(ls -A "$(home_of "$i")/$dest") ]] ||
    fail "host $i: placed from a cut stream: $(ls -A "$(home_of "$i")/$dest")"
done

kill_push_midway "$n" "$dest" -w "$hosts" push --no-agent --extract "$SCRATCH/whole.tar" "$dest"

run_ssh -w "$hosts" push --no-agent --extract "$SCRATCH/whole.tar" "$dest"
expect_status 0
expect_contains "$out" ": 128.0 MiB in 4 files"
same_tree_on_hosts "$n" "$dest"
