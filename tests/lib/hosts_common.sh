# Shared by tests/cli/hosts_*.sh.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # expect "OUTPUT" pdx-args...: `pdx hosts ARGS` prints exactly OUTPUT
  local want=$1 got
  shift
  got=$("$PDX" hosts "$@") || fail "pdx hosts $* exited $?"
  [[ $got == "$want" ]] || fail "pdx hosts $*: got [$got], want [$want]"
}
