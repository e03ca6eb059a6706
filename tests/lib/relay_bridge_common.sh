# Shared by tests/cli/push_exec_relay_bridge*.sh: a relayed push under -R exec (every host is
# this machine, its agent found by its command line, --relay=DEST/h2/) of a large file and a
# small one, and what a bridged host must have.
source "$(dirname "${BASH_SOURCE[0]}")/push_common.sh"
export HOME=$SCRATCH/home
head -c $((96 << 20)) /dev/urandom > "$SCRATCH/huge"
printf 'small\n' > "$SCRATCH/small"

# start_push DIR HOSTS [RELAY]: the push of huge and small to DIR/%h/ in the background, with
# --relay or RELAY; waits until h2's agent has written 16 MiB (its files, which are unnamed until
# whole, and its history: wchar, since rchar does not count its link's recv(2)s).
start_push() {
  local pid read
  "$PDX" -R exec -w "$2" push "${3:---relay}" "$SCRATCH/huge" "$SCRATCH/small" "$1/%h/" \
    > "$SCRATCH/out" 2> "$SCRATCH/err" &
  pdx_pid=$!
  for _ in $(seq 1000); do
    for pid in $(pgrep -f -- "--relay=$1/h2/"); do
      read=$(awk '$1 == "wchar:" {print $2}' "/proc/$pid/io" 2> /dev/null)
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
