# Ctrl-C stops every command (and what it started), reports who did not finish, exits 130.
source "$(dirname "$0")/../lib/common.sh"

marker="pdx-interrupt-$$"
"$PDX" -R exec -f 4 -w 'h[1-8]' "sleep 120 # $marker" </dev/null >"$SCRATCH/out" 2>"$SCRATCH/err" &
pid=$!
wait_for_processes "$marker" 4
kill -INT $pid
wait $pid
status=$?
err=$(cat "$SCRATCH/err")
expect_status 130
expect_contains "$err" "pdx: h[1-4]: interrupted"
expect_contains "$err" "pdx: h[5-8]: interrupted before it started"
sleep 0.5
pgrep -f "$marker" >/dev/null && fail "commands survived Ctrl-C"

# The same with stdin streaming from a pipe: the signal is the executor's to take, not the
# thread reading stdin's.
for _ in 1 2 3; do
  yes | "$PDX" -R exec -w 'h[1-2]' "sleep 120 # $marker" >"$SCRATCH/out" 2>"$SCRATCH/err" &
  pid=$!
  wait_for_processes "$marker" 2
  kill -INT $pid
  wait $pid
  status=$?
  err=$(cat "$SCRATCH/err")
  expect_status 130
  expect_contains "$err" "pdx: h[1-2]: interrupted"
done
true
