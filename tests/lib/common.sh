# Shared by tests/cli/*.sh: where pdx is, a scratch dir, and assertions that say what differed.
# Each test script: `source "$(dirname "$0")/../lib/common.sh"`, then plain commands; the first
# failed assertion ends the script with status 1 (ctest shows the output).
set -uo pipefail
# Once only (ssh_common.sh and pdsh_common.sh both source it): again would make a second $SCRATCH
# and drop the EXIT actions that at_exit registered.
[[ -n ${PDX_COMMON_LOADED:-} ]] && return 0
PDX_COMMON_LOADED=1

: "${PDX:?PDX must point at the pdx binary (ctest sets it)}"
TEST_NAME=$(basename "$0" .sh)
SCRATCH=$(mktemp -d "${PDX_TEST_TMP:-/tmp}/${TEST_NAME}.XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

fail() {
  echo "FAIL [$TEST_NAME]: $*" >&2
  exit 1
}

# run_pdx ARGS...: runs pdx with stdin from /dev/null; sets $out, $err, $status.
run_pdx() {
  "$PDX" "$@" </dev/null >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
  status=$?
  out=$(cat "$SCRATCH/stdout")
  err=$(cat "$SCRATCH/stderr")
}

expect_status() {
  [[ $status -eq $1 ]] || fail "exit status $status, expected $1; stderr: $err"
}

expect_eq() {  # expect_eq ACTUAL EXPECTED [WHAT]
  [[ "$1" == "$2" ]] || fail "${3:-value}: got [$1], expected [$2]"
}

expect_contains() {  # expect_contains HAYSTACK NEEDLE [WHAT]
  [[ "$1" == *"$2"* ]] || fail "${3:-output} does not contain [$2]: [$1]"
}

expect_lines() {  # expect_lines TEXT N [WHAT]
  local n
  n=$(printf '%s' "$1" | grep -c '' || true)
  [[ $n -eq $2 ]] || fail "${3:-output}: $n lines, expected $2"
}

# expect_bridged TEXT HOST [WHAT]: TEXT (stderr) has one warning of HOST's that it bridged around
# the host it forwarded to, to each host that one forwarded to: "pdx: warning: HOST: ADDRESS port
# N broke off (WHY): bridged around it to ADDRESS port N from offset N[; bridged around ...]".
expect_bridged() {
  local to='bridged around it to [0-9.]+ port [0-9]+ from offset [0-9]+' n
  n=$(grep -Ecx "pdx: warning: $2: [0-9.]+ port [0-9]+ broke off \(.*\): $to(; $to)*" <<< "$1" || true)
  [[ $n -eq 1 ]] || fail "${3:-stderr}: not one line of $2 bridging around a host: [$1]"
}

# A usage error: exit 2, exactly one line on stderr, starting "pdx: error:".
expect_usage_error() {
  expect_status 2
  [[ "$err" == "pdx: error: "* ]] || fail "stderr does not start with 'pdx: error:': [$err]"
  expect_lines "$(printf '%s\n' "$err" | grep -v "^Try 'pdx")" 1 "usage error message"
}

# wait_for_processes PATTERN N: wait up to 5 s until N processes match `pgrep -f PATTERN`.
# pdx itself and its children not yet exec'd (their command line is pdx's) are not counted.
wait_for_processes() {
  local pdx pid count
  pdx=$(readlink -f "$PDX")
  for _ in $(seq 50); do
    count=0
    for pid in $(pgrep -f "$1"); do
      [[ $(readlink "/proc/$pid/exe" 2> /dev/null) == "$pdx" ]] || count=$((count + 1))
    done
    ((count >= $2)) && return
    sleep 0.1
  done
}

# hold_port: a port on 127.0.0.1 that this test keeps listening (nobody accepts), in $held_port,
# so that nothing else can listen there whatever the timing; `release_port` lets it go.
hold_port() {
  python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
print(s.getsockname()[1], flush=True); time.sleep(300)' > "$SCRATCH/held_port" &
  port_holder=$!
  for _ in $(seq 100); do [[ -s $SCRATCH/held_port ]] && break; sleep 0.05; done
  held_port=$(cat "$SCRATCH/held_port")
}
release_port() { kill "$port_holder" 2> /dev/null; wait "$port_holder" 2> /dev/null; }

source "$(dirname "${BASH_SOURCE[0]}")/flip_byte.sh"

# kill_once_read BYTES PGREP_ARGS...: while $pdx_pid runs, SIGKILLs the first process that
# `pgrep PGREP_ARGS...` finds once it has written more than BYTES (wchar of /proc/PID/io: a
# relay agent's files, and on a host that forwards its history too; not rchar, which counts
# read(2)s and not the recv(2)s of its link); its pid in $killed, "" when none was.
kill_once_read() {
  local bytes=$1 pid got
  shift
  killed=""
  while [[ -z $killed ]] && kill -0 "$pdx_pid" 2> /dev/null; do
    for pid in $(pgrep "$@"); do
      got=$(awk '$1 == "wchar:" {print $2}' "/proc/$pid/io" 2> /dev/null)
      if (( ${got:-0} > bytes )) && kill -KILL "$pid"; then
        killed=$pid
        break
      fi
    done
    sleep 0.01
  done
}

# run_killing BYTES PGREP_ARGS... --run COMMAND...: COMMAND in the background (its stdout and
# stderr in $SCRATCH/out and err), the first process PGREP_ARGS finds that has read BYTES
# killed (kill_once_read: fails when none was); then status, out and err as it left them.
run_killing() {
  local bytes=$1 find=()
  shift
  while [[ $1 != --run ]]; do find+=("$1"); shift; done
  shift
  "$@" > "$SCRATCH/out" 2> "$SCRATCH/err" &
  pdx_pid=$!
  kill_once_read "$bytes" "${find[@]}"
  [[ -n $killed ]] || fail "nothing to kill (pgrep ${find[*]})"
  wait "$pdx_pid"
  status=$?
  out=$(cat "$SCRATCH/out") err=$(cat "$SCRATCH/err")
}

# run_changing CHANGE COMMAND...: COMMAND in the background (stdin /dev/null), while the shell
# code CHANGE runs again and again until it ends; then status, out and err as it left them.
run_changing() {
  local change=$1 pid changer
  shift
  "$@" < /dev/null > "$SCRATCH/out" 2> "$SCRATCH/err" &
  pid=$!
  ( while kill -0 "$pid" 2> /dev/null; do eval "$change"; done ) &
  changer=$!
  wait "$pid"
  status=$?
  wait "$changer"
  out=$(cat "$SCRATCH/out") err=$(cat "$SCRATCH/err")
}

# holders: the pids of this test's warm-connection holders (`pdx __control-holder`), those whose
# ControlPath is under $SCRATCH/cm.
holders() { pgrep -f "__control-holder .*$SCRATCH/cm" | sort; }
# end_holders: ends them, by pid (only this test's), waiting up to 5 s.
end_holders() {
  local pid
  for pid in $(holders); do kill "$pid"; done
  for _ in $(seq 50); do [[ -z $(holders) ]] && break; sleep 0.1; done
}
