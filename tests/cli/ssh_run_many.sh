# Every host of the cluster runs a real command: each one's output reaches pdx under its own
# name, from its own account, and the largest exit status is pdx's.
source "$(dirname "$0")/../lib/ssh_common.sh"

n=$CLUSTER_SIZE
run_ssh -w "^$HOSTFILE" 'set -- $SSH_CONNECTION; echo "$3 $(id -un) $PDX_RANK $PDX_NHOSTS"; exit $((PDX_RANK % 4))'
expect_status 3
expect_lines "$out" "$n"
for i in $(seq "$n"); do
  addr=$(host "$i")
  user=$([[ $EUID -eq 0 ]] && printf 'pdx%03d' "$i" || id -un)
  expect_contains "$out" "$addr: $addr $user $((i - 1)) $n" "output of host $i"
done
expect_contains "$err" ": exit 3" "summary"

# Each host's own files: a file written on one is seen there only (accounts have own homes).
if [[ $EUID -eq 0 ]]; then
  run_ssh -w "$(host 1),$(host 2)" 'echo $PDX_RANK > pdx-test-rank; cat pdx-test-rank'
  expect_status 0
  expect_eq "$(cat "$(home_of 1)/pdx-test-rank")" 0 "host 1's file"
  expect_eq "$(cat "$(home_of 2)/pdx-test-rank")" 1 "host 2's file"
  rm -f "$(home_of 1)/pdx-test-rank" "$(home_of 2)/pdx-test-rank"
fi

# stdout and stderr stay apart; stdin reaches every host.
printf 'line one\nline two\n' > "$SCRATCH/in"
"$PDX" -F "$CONFIG" -w "$(host 1),$(host 2)" 'wc -l; echo oops >&2' < "$SCRATCH/in" > "$SCRATCH/o" 2> "$SCRATCH/e"
expect_eq "$(sort "$SCRATCH/o")" "$(host 1): 2
$(host 2): 2" "stdin line counts"
expect_contains "$(cat "$SCRATCH/e")" "$(host 1): oops" "stderr"
true
