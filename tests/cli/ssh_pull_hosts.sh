# pdx pull over ssh: each of 8 hosts (an account and home each) sends its own file and tree,
# into LOCAL/<address>/; an unreachable host is 255 and the others complete.
source "$(dirname "$0")/../lib/ssh_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"

dir=pdx-test-pull-$$
hosts="$(host 1)"
for n in $(seq 2 8); do hosts+=",$(host "$n")"; done
at_exit "run_ssh -w '$hosts' 'rm -rf $dir'"
run_ssh -w "$hosts" "mkdir -p $dir/tree/'a b' && echo \"log of \$PDX_RANK\" > $dir/train.log &&
  echo \"\$PDX_HOST\" > $dir/tree/'a b'/\"it's \$PDX_RANK\""
expect_status 0

run_pdx pull -F "$CONFIG" -w "$hosts" "$dir/train.log" "$dir/tree" "$SCRATCH/out"
expect_status 0
expect_eq "$err" "pdx: 127.0.0.[1-8]: pulled" "summary"
for n in 1 5 8; do
  h=$(host "$n")
  expect_eq "$(cat "$SCRATCH/out/$h/train.log")" "log of $((n - 1))" "$h's log"
  expect_eq "$(cat "$SCRATCH/out/$h/tree/a b/it's $((n - 1))")" "$h" "$h's tree"
done

# A dead host among them (nobody listens on 127.0.4.1): 255, named; the others are pulled.
run_pdx pull -F "$CONFIG" -t 5 -w "$(host 1),127.0.4.1" "$dir/train.log" "$SCRATCH/out2"
expect_status 255
expect_contains "$err" "pdx: 127.0.0.1: pulled"
expect_contains "$err" "pdx: 127.0.4.1: connect to port $CLUSTER_PORT: Connection refused"
expect_eq "$(cat "$SCRATCH/out2/$(host 1)/train.log")" "log of 0" "the reachable host's log"
[[ ! -e $SCRATCH/out2/127.0.4.1 ]] || fail "a directory for the dead host"
true
