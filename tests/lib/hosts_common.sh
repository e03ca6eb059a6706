# Shared by tests/cli/hosts_*.sh.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # expect "OUTPUT" pdx-args...: `pdx hosts ARGS` prints exactly OUTPUT
  local want=$1 got
  shift
  got=$("$PDX" hosts "$@") || fail "pdx hosts $* exited $?"
  [[ $got == "$want" ]] || fail "pdx hosts $*: got [$got], want [$want]"
}
expect_error() {  # expect_error "MESSAGE" pdx-args...: exit status 2 and one line "pdx: error: MESSAGE"
  local want=$1 got status
  shift
  got=$(timeout 20 "$PDX" hosts "$@" 2>&1 >/dev/null) && status=0 || status=$?
  [[ $status == 2 ]] || fail "pdx hosts $*: exit $status, want 2"
  [[ $got == "pdx: error: $want" ]] || fail "pdx hosts $*: got [$got], want [pdx: error: $want]"
}
