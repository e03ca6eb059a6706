# pdx preflight with a host nobody answers for (127.0.0.254): it is named once, under "reached",
# the other hosts are checked as usual, and the exit status is 255.
source "$(dirname "$0")/../lib/preflight_common.sh"

hosts+=",127.0.0.254"
preflight --no-ssh-check -t 3
expect_status 255
expect_contains "$out" "ok   reached: 127.0.0.[41-48]"
expect_contains "$out" "FAIL reached: 127.0.0.254 ("
expect_contains "$out" "ok   kernel $(uname -r): 127.0.0.[41-48]"
[[ $(grep -c 127.0.0.254 <<< "$out") -eq 1 ]] || fail "the host not reached on other lines: $out"
true
