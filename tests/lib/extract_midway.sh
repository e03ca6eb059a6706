# Shared by tests/cli/push_exec_extract_cut.sh and push_exec_extract_leftovers.sh: a push --extract
# caught midway, the host's agent unpacking while pdx waits for the rest of its input.
source "$(dirname "${BASH_SOURCE[0]}")/push_common.sh"

# extract_midway DIR: pdx push --extract to h1's DIR/h1 (made) of a tar of 8 files of 1 MiB
# ($SCRATCH/big.tar) through standard input, of which only the first 5 MiB come, then nothing;
# returns once the host has unpacked a file there. Sets $pdx_pid (pdx, still running) and
# $writer (what feeds it); end it with extract_midway_end.
extract_midway() {
  mkdir -p "$SCRATCH/big" "$1/h1"
  for i in $(seq 1 8); do head -c $((1 << 20)) /dev/zero > "$SCRATCH/big/f$i"; done
  tar -c -f "$SCRATCH/big.tar" -C "$SCRATCH/big" . || fail "tar failed"
  mkfifo "$SCRATCH/fifo"
  (head -c $((5 << 20)) "$SCRATCH/big.tar" && exec sleep 60) > "$SCRATCH/fifo" &
  writer=$!
  "$PDX" -R exec -w h1 push --extract - "$1/%h" < "$SCRATCH/fifo" > /dev/null 2>&1 &
  pdx_pid=$!
  for _ in $(seq 1 400); do
    [[ -n $(find "$1/h1" -type f -name "f*") ]] && return
    sleep 0.05
  done
  fail "the host unpacked nothing"
}

# extract_midway_end: ends pdx's input and waits for pdx (killed, or ending as its agent was: it
# reads its input to the end all the same).
extract_midway_end() {
  kill "$writer" 2> /dev/null
  wait "$writer" 2> /dev/null
  wait "$pdx_pid" 2> /dev/null
}
