# pdx sync starts one agent per host for its first step (signatures, and with --delete the
# listing) and that agent stays for the host's next steps (the deltas, the files sent whole, the
# deletions): the agent (a wrapper logging each call's first argument) is called once per host
# for a sync whose steps go over ssh. A step over a direct link or a relay is the agent's last
# (the stream may come on its stdin to its end): each step after it is one call more. With -u
# (each command's time limited) it does not stay, and the signatures and the listing still take
# one call.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 3 ? CLUSTER_SIZE : 3 ))
(( n >= 2 )) || skip "needs 2 hosts"
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
clean_on_hosts "$n" one-agent
logging_agent
mkdir "$SCRATCH/src"
head -c 300000 /dev/urandom > "$SCRATCH/src/big"
printf 'small\n' > "$SCRATCH/src/small"

# sync_calls WANT ARGS...: pdx sync ARGS... succeeds, and each host's agent calls (their first
# arguments' options, in order) are WANT.
sync_calls() {
  local want=$1 i address calls
  shift
  : > "$SCRATCH/log/calls"
  run_ssh -w "$hosts" "$@" --agent "$SCRATCH/agent"
  expect_status 0
  for i in $(seq "$n"); do
    address=$(host "$i")
    calls=$(awk -v a="$address" '$3 == a { print $5 }' "$SCRATCH/log/calls" | cut -d= -f1 |
      paste -sd' ')
    expect_eq "$calls" "$want" "calls on $address for: $*"
  done
}
# extra_on_hosts: a file on every host that the sources do not have, its directory's time kept
# (else it is sent again).
extra_on_hosts() {
  local i d
  for i in $(seq "$n"); do
    d=$(home_of "$i")/one-agent/src
    touch -r "$d" "$SCRATCH/time"
    printf 'extra\n' > "$d/extra"
    touch -r "$SCRATCH/time" "$d"
  done
}
# same_everywhere: every host's copy is the sources', and has no extra.
same_everywhere() {
  local i
  for i in $(seq "$n"); do
    same_tree "$SCRATCH/src" "$(home_of "$i")/one-agent/src"
    [[ ! -e $(home_of "$i")/one-agent/src/extra ]] || fail "host $i: extra not deleted"
  done
}

sync_calls "--signatures" sync "$SCRATCH/src" one-agent/  # all sent whole, by the first agent
expect_contains "$out" "2 files sent whole" "first sync"
sync_calls "--signatures" sync --delete "$SCRATCH/src" one-agent/
expect_contains "$out" "up to date" "up to date"

extra_on_hosts
sync_calls "--signatures" sync --delete "$SCRATCH/src" one-agent/  # the deletions only
expect_contains "$out" "1 deleted" "deletions only"
same_everywhere

# The deltas, a new file whole, the deletions, all over ssh: the first agent takes them all.
printf 'EDIT' | dd of="$SCRATCH/src/big" bs=1 seek=1000 conv=notrunc status=none
touch -d '2003-01-01' "$SCRATCH/src/big"
printf 'new\n' > "$SCRATCH/src/new"
extra_on_hosts
sync_calls "--signatures" sync --delete "$SCRATCH/src" one-agent/
expect_contains "$out" "1 file patched" "patched"
expect_contains "$out" "1 file sent whole (4 B), 1 deleted" "sent whole and deleted"
same_everywhere

# The same over direct links: the deltas' link is the first agent's last step.
printf 'EDIT' | dd of="$SCRATCH/src/big" bs=1 seek=1500 conv=notrunc status=none
touch -d '2003-06-01' "$SCRATCH/src/big"
printf 'renewed\n' > "$SCRATCH/src/fresh"
extra_on_hosts
sync_calls "--signatures --relay --delete" sync --delete --data-via direct "$SCRATCH/src" one-agent/
expect_contains "$out" "1 file patched" "patched over a direct link"
expect_contains "$out" "1 file sent whole (8 B), 1 deleted" "sent whole over a direct link"
same_everywhere

# Over direct links and host to host, the agent that stayed takes its link (new files: sent
# whole, one step).
printf 'newer\n' > "$SCRATCH/src/new2"
sync_calls "--signatures" sync --data-via direct "$SCRATCH/src" one-agent/
expect_contains "$out" "1 file sent whole (6 B)" "over a direct link"
printf 'newest\n' > "$SCRATCH/src/new3"
sync_calls "--signatures" sync --relay "$SCRATCH/src" one-agent/
expect_contains "$out" "1 file sent whole (7 B)" "host to host"
expect_eq "$err" "" "the chain linked up"
same_everywhere

# -u: every step a call of its own, the signatures and the listing one.
printf 'EDIT' | dd of="$SCRATCH/src/big" bs=1 seek=2000 conv=notrunc status=none
touch -d '2004-01-01' "$SCRATCH/src/big"
printf 'again\n' > "$SCRATCH/src/new"
extra_on_hosts
sync_calls "--signatures --patch --receive --delete" -u 60 sync --delete "$SCRATCH/src" one-agent/
expect_contains "$out" "2 files patched" "patched with -u"
same_everywhere
