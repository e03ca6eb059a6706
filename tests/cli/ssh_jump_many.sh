# 63 hosts behind one jump host (the loopback cluster's first host) on one connection to it,
# also under a limit on open files that leaves room for fewer at once: a host behind a jump host
# holds two descriptors (its socketpair's ends), and waits for them rather than failing with
# "Too many open files".
source "$(dirname "$0")/../lib/ssh_common.sh"
(( CLUSTER_SIZE >= 64 )) || skip "needs 64 hosts"
hosts="127.0.0.[2-64]"

run_ssh -J "$(host 1)" -w "$hosts" -b 'echo ok'
expect_status 0
expect_eq "$(sed -n 2p <<< "$out")" "127.0.0.[2-64] (63)" "every host through the jump host"

out=$(ulimit -n 64 && "$PDX" -F "$CONFIG" -J "$(host 1)" -w "$hosts" -b 'sleep 0.2; echo ok' < /dev/null 2>&1)
expect_eq "$out" "-------------------
127.0.0.[2-64] (63)
-------------------
ok" "under ulimit -n 64"
true
