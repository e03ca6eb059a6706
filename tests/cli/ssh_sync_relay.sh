# pdx sync --relay over ssh: 6 hosts holding the same old file get one delta, sent from here to
# the first host only and host to host after it (the bytes pdx writes to the hosts, over ssh and
# the head's direct link, counted by strace, are about one delta, not 6); every host patched and
# byte-identical; the same as a tree (--relay=tree:2); a host whose old file differs is a group
# of its own; a relay that cannot link up is sent from here, said once; bad --relay values are
# usage errors.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
command -v strace > /dev/null || skip "needs strace to count the bytes sent"
n=$(( CLUSTER_SIZE < 6 ? CLUSTER_SIZE : 6 ))
(( n >= 4 )) || skip "needs 4 hosts"
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
folded=$("$PDX" hosts --fold -w "$hosts")
clean_on_hosts "$n" syncr
mkdir "$SCRATCH/src"
head -c $((8 << 20)) /dev/urandom > "$SCRATCH/src/big"
printf 'small\n' > "$SCRATCH/src/small"
run_ssh -w "$hosts" sync "$SCRATCH/src" 'syncr/'
expect_status 0

# edit AT BYTES: BYTES random bytes at AT in src/big, a new mtime.
edit() {
  head -c "$2" /dev/urandom | dd of="$SCRATCH/src/big" bs=1M seek="$1" oflag=seek_bytes conv=notrunc status=none
  touch -d "@$(( $(date +%s) - RANDOM ))" "$SCRATCH/src/big"
}
all_synced() {
  for i in $(seq "$n"); do
    cmp "$SCRATCH/src/big" "$(home_of "$i")/syncr/src/big" || fail "host $i: not byte-identical ($1)"
    no_leftovers "$(home_of "$i")/syncr"
  done
}
# sent ARGS...: pdx sync ARGS under strace, $out/$err/$status as run_ssh; $sent the bytes pdx
# wrote to the cluster's hosts (their ssh port, and the head's direct link).
sent() {
  strace -f -qq -yy -e trace=sendmsg,sendto,write,writev -o "$SCRATCH/strace" \
    "$PDX" -F "$CONFIG" "$@" > "$SCRATCH/out" 2> "$SCRATCH/err" < /dev/null
  status=$?
  out=$(cat "$SCRATCH/out") err=$(cat "$SCRATCH/err")
  sent=$(grep -- "->127\.0\.0\.[0-9]*:[0-9]*\]>" "$SCRATCH/strace" | sed -n 's/.*= \([0-9]*\)$/\1/p' |
    awk '{ s += $1 } END { print s + 0 }')
}

# 2 MiB of new bytes: a delta of about 2 MiB, sent once.
edit 3000000 $((2 << 20))
sent -w "$hosts" sync --relay "$SCRATCH/src" 'syncr/'
expect_status 0
[[ $out =~ ^pdx:\ $(sed 's/[][]/\\&/g' <<< "$folded"):\ 1\ file\ patched\ \(8\.0\ MiB,\ 2\.[0-9]\ MiB\ sent\)$ ]] ||
  fail "not one folded patched line: $out"
expect_eq "$err" "" "the chain linked up"
(( sent > 3 << 19 && sent < 3 << 20 )) || fail "$sent bytes sent from here for one 2 MiB delta to $n hosts"
all_synced chain

edit 100 $((1 << 20))
sent -w "$hosts" sync --relay=tree:2 "$SCRATCH/src" 'syncr/'
expect_status 0
expect_contains "$out" "1 file patched (8.0 MiB, 1." "a tree"
expect_eq "$err" "" "the tree linked up"
(( sent < 2 << 20 )) || fail "$sent bytes sent from here for one 1 MiB delta to a tree of $n hosts"
all_synced tree

# Host 3's old file differs: its own group, its own delta.
printf 'host 3 own' | dd of="$(home_of 3)/syncr/src/big" bs=1 seek=6000000 conv=notrunc status=none
edit 5000000 4096
run_ssh -w "$hosts" sync --relay "$SCRATCH/src" 'syncr/'
expect_status 0
expect_lines "$out" 2 "two groups"
expect_contains "$out" "pdx: $(host 3): 1 file patched"
all_synced "two groups"

# Every agent on 127.0.0.1 and a port already taken: none can listen, the chain cannot link
# up, and both the delta and a new file go from here; said once, and that no direct link could
# be made either (over ssh), once.
edit 7000000 4096
printf 'new\n' > "$SCRATCH/src/new"
hold_port
run_ssh -w "$hosts" sync --relay --relay-bind 127.0.0.1 --relay-ports "$held_port" "$SCRATCH/src" 'syncr/'
expect_status 0
release_port
expect_contains "$out" "1 file patched" "sent from here"
expect_contains "$out" "1 file sent whole (4 B)"
expect_contains "$err" "pdx: warning: $folded: the relay could not link up ("
expect_contains "$err" "pdx: warning: $folded: no direct data link (" "the star's fallback"
expect_eq "$(grep -c warning <<< "$err")" 2 "each said once"
all_synced "called off"
for i in $(seq "$n"); do cmp "$SCRATCH/src/new" "$(home_of "$i")/syncr/src/new" || fail "host $i: no new"; done

# Bad input: usage errors, before any host is touched.
edit 0 10
run_ssh -w "$hosts" sync --relay=tree:1 "$SCRATCH/src" 'syncr/'
expect_status 2
expect_eq "$err" "pdx: error: --relay: 'tree:1' is neither chain nor tree:K with K in 2-16"
run_ssh -w "$hosts" sync --relay --relay-ports 9-1 "$SCRATCH/src" 'syncr/'
expect_status 2
expect_eq "$err" "pdx: error: --relay-ports: the range ends before it starts"
cmp -s "$SCRATCH/src/big" "$(home_of 1)/syncr/src/big" && fail "a usage error synced"
true
