# pdx preflight --net on 4 hosts of the loopback cluster: each host sends to the next in a ring
# for --net-time, then the three others to the master (the first host) at once; the checks say they
# measured loopback; --json gives each host's own figures.
source "$(dirname "$0")/../lib/preflight_common.sh"
source "$(dirname "$0")/../lib/json_lines.sh"

hosts=$(IFS=,; echo "${PF_HOSTS[*]:0:4}")
net_port=$(free_port)
preflight --no-ssh-check --net --net-time 0.5 --net-port "$net_port" --python /usr/bin/python3
expect_contains "$out" "net ring (loopback) "
expect_contains "$out" "net to the master (loopback) "
grep -q '^FAIL net to the master (loopback) to ' <<< "$out" && fail "a host did not reach the master: $out"
grep -q '^FAIL net ring (loopback) to ' <<< "$out" && fail "a host of the ring did not measure: $out"
[[ $status -eq 0 || $out == *"FAIL net "*"(loopback) "*"(median "* ]] || fail "exit $status: $out"

preflight --no-ssh-check --net --net-time 0.5 --net-port "$net_port" --python /usr/bin/python3 --json
rows=$(json_fields check host detail | grep 'net ring')
expect_lines "$rows" 4 "net ring rows"
expect_contains "$rows" '["net ring (loopback)","127.0.0.44","'
expect_contains "$rows" ' to 127.0.0.41, RTT '
rows=$(json_fields check host detail | grep 'net to the master')
expect_lines "$rows" 3 "rows of the round to the master (not the master's own)"
[[ $rows != *'"127.0.0.41"'* ]] || fail "the master measured against itself: $rows"
true
