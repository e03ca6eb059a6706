# pdx push --relay with a host that dies or stalls mid-chain: its neighbours bridge it (the host
# before links to the ones after, which resume from the offset they hold), it alone is reported
# failed, on one line, and every other host has every file whole (nothing partial under a final
# name, no temporary file left). Under -R exec every host is this machine: its agent is found by
# its command line (--relay=DEST/h2/).
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
head -c $((96 << 20)) /dev/urandom > "$SCRATCH/huge"
printf 'small\n' > "$SCRATCH/small"

# start_push DIR HOSTS [RELAY]: the push of huge and small to DIR/%h/ in the background, with
# --relay or RELAY; waits until h2's agent has read 16 MiB (its files are unnamed until whole).
start_push() {
  local pid read
  "$PDX" -R exec -w "$2" push "${3:---relay}" "$SCRATCH/huge" "$SCRATCH/small" "$1/%h/" \
    > "$SCRATCH/out" 2> "$SCRATCH/err" &
  pdx_pid=$!
  for _ in $(seq 1000); do
    for pid in $(pgrep -f -- "--relay=$1/h2/"); do
      read=$(awk '$1 == "rchar:" {print $2}' "/proc/$pid/io" 2> /dev/null)
      (( ${read:-0} > 16 << 20 )) && return
    done
    sleep 0.01
  done
  fail "h2 never began to read"
}

finish_push() {
  wait "$pdx_pid"
  status=$?
  out=$(cat "$SCRATCH/out") err=$(cat "$SCRATCH/err")
}

# complete DIR HOSTS...: each has both files, byte for byte, and no temporary file.
complete() {
  local dir=$1 h
  shift
  for h in "$@"; do
    cmp -s "$SCRATCH/huge" "$dir/$h/huge" || fail "$h: huge is not whole"
    cmp -s "$SCRATCH/small" "$dir/$h/small" || fail "$h: small is not whole"
    no_leftovers "$dir/$h"
  done
}

# A chain of 5, the second after the head killed: h1 bridges to h3; h3 to h5 complete.
start_push "$SCRATCH/k" 'h[1-5]'
pkill -KILL -f -- "--relay=$SCRATCH/k/h2/" || fail "no agent of h2 to kill"
finish_push
expect_status 1
expect_eq "$err" "pdx: h2: killed by signal KILL" "the killed host, alone, on one line"
expect_eq "$out" "pdx: h[1,3-5]: 96.0 MiB in 2 files" "the others complete"
complete "$SCRATCH/k" h1 h3 h4 h5
[[ ! -e $SCRATCH/k/h2/huge ]] || fail "h2: a huge under its final name"

# A stalled host (stopped, its links open): bridged after it has taken nothing and said nothing
# for 10 s; woken again, it fails on its own and changes nothing on the others.
start_push "$SCRATCH/s" 'h[1-4]'
pkill -STOP -f -- "--relay=$SCRATCH/s/h2/" || fail "no agent of h2 to stop"
for _ in $(seq 600); do
  [[ -e $SCRATCH/s/h4/huge ]] && break
  sleep 0.1
done
complete "$SCRATCH/s" h1 h3 h4
pkill -CONT -f -- "--relay=$SCRATCH/s/h2/"
finish_push
expect_status 1
expect_contains "$err" "pdx: h2: the stream from upstream broke off: "
expect_lines "$err" 1 "the stalled host, alone"
expect_eq "$out" "pdx: h[1,3-4]: 96.0 MiB in 2 files" "the others complete"
complete "$SCRATCH/s" h1 h3 h4
no_leftovers "$SCRATCH/s/h2"
[[ ! -e $SCRATCH/s/h2/huge ]] || fail "h2: a huge under its final name"

# A tree of fan-out 2 (h1 -> h2 h3, h2 -> h4 h5, h3 -> h6 h7), the inner h2 killed: h1 bridges
# to h4 and h5.
start_push "$SCRATCH/t" 'h[1-7]' --relay=tree:2
pkill -KILL -f -- "--relay=$SCRATCH/t/h2/" || fail "no agent of h2 to kill"
finish_push
expect_status 1
expect_eq "$err" "pdx: h2: killed by signal KILL" "the killed inner host, alone"
expect_eq "$out" "pdx: h[1,3-7]: 96.0 MiB in 2 files" "the others complete"
complete "$SCRATCH/t" h1 h3 h4 h5 h6 h7
true
