# A reader that goes away (`pdx ... | head -1`) ends the run at once: the commands are stopped as
# for Ctrl-C, nothing is said, and pdx exits 141 (128 + SIGPIPE), as `yes | head -1` does.
source "$(dirname "$0")/../lib/common.sh"

marker="pdx-broken-pipe-$$"
for mode in "" -N; do
  start=$SECONDS
  timeout 20 "$PDX" -R exec -w 'h[1-4]' $mode "yes $marker" </dev/null 2>"$SCRATCH/stderr" |
    head -1 >"$SCRATCH/first"
  status=${PIPESTATUS[0]}
  err=$(cat "$SCRATCH/stderr")
  expect_status 141
  expect_eq "$err" "" "stderr ($mode)"
  expect_contains "$(cat "$SCRATCH/first")" "$marker" "first line ($mode)"
  ((SECONDS - start <= 5)) || fail "took $((SECONDS - start)) s ($mode)"
  sleep 0.3
  pgrep -f "yes $marker" >/dev/null && fail "commands survived ($mode)"
done

# Output that ends by itself still ends the run early when nobody reads it, in every mode.
for mode in "" -N -b --json; do
  timeout 20 "$PDX" -R exec -w 'h[1-4]' $mode 'seq 1 200000' </dev/null 2>"$SCRATCH/stderr" |
    head -c 1 >/dev/null
  status=${PIPESTATUS[0]}
  err=$(cat "$SCRATCH/stderr")
  expect_status 141
  expect_eq "$err" "" "stderr ($mode)"
done
