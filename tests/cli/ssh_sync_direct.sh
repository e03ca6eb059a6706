# pdx sync without --relay over ssh: whole files and deltas go over each host's direct link
# (--data-via direct fails a host that cannot link, so a pass says they did), byte-identical, the
# delta as small as over ssh; a link that cannot be made falls back to ssh with one line.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
n=$(( CLUSTER_SIZE < 3 ? CLUSTER_SIZE : 3 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
dir="direct $TEST_NAME"
clean_on_hosts "$n" "$dir"
mkdir "$SCRATCH/src"
head -c 8388608 /dev/urandom > "$SCRATCH/src/big"
printf 'small\n' > "$SCRATCH/src/small"

run_ssh -w "$hosts" sync --data-via direct "$SCRATCH/src" "$dir/"
expect_status 0
expect_contains "$out" "2 files sent whole (8.0 MiB)" "whole files"
expect_eq "$err" "" "no warning"

for at in 1000 4000000; do
  printf 'EDITED HERE' | dd of="$SCRATCH/src/big" bs=1 seek=$at conv=notrunc status=none
done
touch -d '2003-01-01' "$SCRATCH/src/big"
run_ssh -w "$hosts" sync --data-via direct "$SCRATCH/src" "$dir/"
expect_status 0
expect_eq "$err" "" "no warning"
[[ $out =~ ^pdx:\ [^:]+:\ 1\ file\ patched\ \(8\.0\ MiB,\ ([0-9.]+)\ KiB\ sent\)$ ]] ||
  fail "not one folded patched line: $out"
for i in $(seq "$n"); do same_tree "$SCRATCH/src" "$(home_of "$i")/$dir/src"; done

# --data-via ssh, and a link that cannot be made: over ssh, the latter said once.
printf 'again\n' >> "$SCRATCH/src/small"
run_ssh -w "$hosts" sync --data-via ssh "$SCRATCH/src" "$dir/"
expect_status 0
expect_eq "$err" "" "no warning over ssh"
printf 'and again\n' >> "$SCRATCH/src/small"
printf 'EDITED AGAIN' | dd of="$SCRATCH/src/big" bs=1 seek=2000000 conv=notrunc status=none
touch -d '2004-01-01' "$SCRATCH/src/big"  # a delta of a file of 1 MiB or more: worth a link
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PDX_TEST_DIRECT_VIA=127.0.0.1:$dead run_ssh -w "$hosts" sync "$SCRATCH/src" "$dir/"
expect_status 0
expect_lines "$err" 1 "one warning"
expect_contains "$err" "pdx: warning: 127.0.0.[1-$n]: no direct data link (127.0.0.1: cannot connect to 127.0.0.1 port $dead" "the fallback's line"
for i in $(seq "$n"); do same_tree "$SCRATCH/src" "$(home_of "$i")/$dir/src"; done
