# Under a low hard limit on open files (which pdx cannot raise), sessions wait for descriptors
# instead of failing: every host of the cluster runs. A limit too low for any session is one
# line, not one per host.
source "$(dirname "$0")/../lib/ssh_common.sh"

(( CLUSTER_SIZE >= 64 )) || skip "needs 64 hosts, the cluster has $CLUSTER_SIZE"
hosts=$(head -64 "$HOSTFILE" | paste -sd,)
(
  ulimit -n 64 || exit 3
  run_ssh -w "$hosts" 'echo ok'
  expect_status 0
  expect_eq "$(grep -c ': ok$' <<< "$out")" 64 "hosts that ran"
  expect_eq "$err" "" "stderr"
) || fail "with ulimit -n 64 (status $?)"

(
  ulimit -n 20 || exit 3
  run_ssh -w "$hosts" 'echo ok'
  expect_status 1
  expect_eq "$err" "pdx: error: the limit on open files (ulimit -n 20) leaves none for ssh sessions: Too many open files"
) || fail "with ulimit -n 20"
true
