# pdx push without --relay over ssh: each host's data goes over a direct link of its own from pdx
# to its agent (sealed records), the control over ssh; --data-via ssh the old way; a link that
# cannot be made falls back to ssh with one line (--data-via direct: the host fails instead).
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
n=$(( CLUSTER_SIZE < 4 ? CLUSTER_SIZE : 4 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
dir="direct $TEST_NAME"
clean_on_hosts "$n" "$dir"
make_tree "$SCRATCH/src"

# The star over direct links: --data-via direct fails any host that cannot link, so a pass
# says every host's data went over its link.
run_ssh -w "$hosts" push --data-via direct "$SCRATCH/src" "$dir/tree/"
expect_status 0
expect_eq "$out" "pdx: 127.0.0.[1-$n]: 3.0 MiB in 8 files" "summary"
expect_eq "$err" "" "no warning"
for i in $(seq "$n"); do
  same_tree "$SCRATCH/src" "$(home_of "$i")/$dir/tree/src"
  no_leftovers "$(home_of "$i")/$dir"
done

# The default (auto) links too, silently; --extract over the links.
(cd "$SCRATCH" && "$PDX" pack src -o data.tar.zst --split 1M) > /dev/null || fail "pack failed"
run_ssh -w "$hosts" push --extract "$SCRATCH"/data.tar.zst.part-* "$dir/extracted"
expect_status 0
expect_eq "$err" "" "no warning with --extract"
for i in $(seq "$n"); do
  same_tree "$SCRATCH/src" "$(home_of "$i")/$dir/extracted/src"
done

# --data-via ssh: through each host's ssh channel, as before.
run_ssh -w "$hosts" push --data-via ssh "$SCRATCH/src" "$dir/over ssh/"
expect_status 0
expect_eq "$err" "" "no warning over ssh"
for i in $(seq "$n"); do same_tree "$SCRATCH/src" "$(home_of "$i")/$dir/over ssh/src"; done

# A link that cannot be made (pdx is sent to a port nobody listens on): over ssh, said once.
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PDX_TEST_DIRECT_VIA=127.0.0.1:$dead run_ssh -w "$hosts" push "$SCRATCH/src" "$dir/fallback/"
expect_status 0
expect_lines "$err" 1 "one warning"
expect_contains "$err" "pdx: warning: 127.0.0.[1-$n]: no direct data link (127.0.0.1: cannot connect to 127.0.0.1 port $dead" "the fallback's line"
expect_contains "$err" "); sent over ssh" "the fallback's line"
for i in $(seq "$n"); do same_tree "$SCRATCH/src" "$(home_of "$i")/$dir/fallback/src"; done
# A stream under 1 MiB goes over ssh in auto mode, without trying a link (none could be made
# here: no warning says there was no link); --data-via direct links it all the same.
printf 'a few bytes\n' > "$SCRATCH/tiny"
PDX_TEST_DIRECT_VIA=127.0.0.1:$dead run_ssh -w "$hosts" push "$SCRATCH/tiny" "$dir/tiny/"
expect_status 0
expect_eq "$err" "" "a tiny stream over ssh, no link tried"
for i in $(seq "$n"); do cmp -s "$SCRATCH/tiny" "$(home_of "$i")/$dir/tiny/tiny" || fail "host $i: tiny"; done
PDX_TEST_DIRECT_VIA=127.0.0.1:$dead run_ssh -w "$hosts" push --data-via direct "$SCRATCH/tiny" "$dir/tiny direct/"
expect_status 1
expect_contains "$err" "no direct data link: cannot connect to 127.0.0.1 port $dead" "direct, however small"
# No free port where host 1's agent is to listen (its only one held): that host over ssh, said
# once; the others link.
hold_port
run_ssh -w "$hosts" push --relay-ports "$held_port" "$SCRATCH/src" "$dir/no port/"
release_port
expect_status 0
expect_lines "$err" 1 "one warning"
expect_contains "$err" "pdx: warning: 127.0.0.1: no direct data link (cannot listen on 127.0.0.1 port $held_port" "the fallback's line"
for i in $(seq "$n"); do same_tree "$SCRATCH/src" "$(home_of "$i")/$dir/no port/src"; done
# ... and with --data-via direct, every host fails, nothing written.
PDX_TEST_DIRECT_VIA=127.0.0.1:$dead run_ssh -w "$hosts" push --data-via direct "$SCRATCH/src" "$dir/required/"
expect_status 1
expect_contains "$err" "pdx: 127.0.0.[1-$n]: no direct data link: cannot connect to 127.0.0.1 port $dead" "a host that cannot link"
[[ ! -e $(home_of 1)/$dir/required/src/plain ]] || fail "a host that could not link was written to"
true
