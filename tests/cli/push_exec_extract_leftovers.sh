# pdx push --extract after an agent was SIGKILLed while unpacking (no clean-up possible): the next
# extract into that DEST removes the hidden directory it left, said once; one whose owner still
# runs is left alone, and one named for a PID now another process's (started later) is removed.
source "$(dirname "$0")/../lib/extract_midway.sh"
export HOME=$SCRATCH/home
dest=$SCRATCH/kill/h1

# The agent killed once it has unpacked a file into its hidden directory.
extract_midway "$SCRATCH/kill"
agent=$(pgrep -f -- "agent .*receive=$dest") || fail "no agent found"
kill -KILL $agent
extract_midway_end
left=$(cd "$dest" && ls -A)
[[ $left == .extract.pdx-* ]] || fail "the killed agent left no hidden directory: $left"

# One of a live process (kept), one of the same PID started at another time (removed).
sleep 60 &
live=$!
trap 'kill "$live" 2> /dev/null; rm -rf "$SCRATCH"' EXIT
start=$(sed 's/.*) //' "/proc/$live/stat" | cut -d' ' -f20)
mkdir -p "$dest/.extract.pdx-$(uname -n)-$live-$start-1/x" "$dest/.extract.pdx-$(uname -n)-$live-1-1/x"

run_pdx -R exec -w h1 push --extract "$SCRATCH/big.tar" "$SCRATCH/kill/%h"
expect_status 0
expect_eq "$out" "pdx: h1: 8.0 MiB in 8 files" "summary"
[[ $err == "pdx: warning: h1: removed what an unpack killed before its end left in $SCRATCH/kill/h1 (.extract.pdx-"*" and 1 more)" ]] ||
  fail "not one warning naming the leftovers: $err"
expect_eq "$(cd "$dest" && ls -A | tr '\n' ' ')" ".extract.pdx-$(uname -n)-$live-$start-1 f1 f2 f3 f4 f5 f6 f7 f8 " "DEST"

# Said once: nothing is left to remove the next time.
run_pdx -R exec -w h1 push --extract "$SCRATCH/big.tar" "$SCRATCH/kill/%h"
expect_status 0
expect_eq "$err" "" "stderr the next time"
