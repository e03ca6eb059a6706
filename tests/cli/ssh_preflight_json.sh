# pdx preflight --json: one JSON object per check and host, with check, host, outcome (ok, fail,
# n/a), value and note; nothing else on stdout.
source "$(dirname "$0")/../lib/preflight_common.sh"
source "$(dirname "$0")/../lib/json_lines.sh"

preflight --json --no-ssh-check -E NCCL_SOCKET_IFNAME=bond1
expect_status 1
rows=$(json_fields check host outcome)
expect_contains "$rows" '["reached","127.0.0.41","ok"]'
expect_contains "$rows" '["NCCL_SOCKET_IFNAME","127.0.0.48","fail"]'
expect_contains "$rows" '["GPUs","127.0.0.43","n/a"]'
expect_contains "$rows" "[\"master port $port\",\"127.0.0.41\",\"ok\"]"
[[ $(grep -c '"master port' <<< "$out") -eq 1 ]] || fail "master port on other hosts: $out"
values=$(json_fields check value note | grep NCCL_SOCKET | sort -u)
expect_eq "$values" '["NCCL_SOCKET_IFNAME","bond1 missing",""]'
# Every check has a row for every host but the master's port.
checks=$(json_fields check | sort | uniq -c | awk '$1 != 8' | sed 's/^ *//')
expect_eq "$checks" "1 [\"master port $port\"]"
true
