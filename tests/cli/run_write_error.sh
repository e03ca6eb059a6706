# A failed write (a full disk) is one line naming what could not be written, and exit 1, in
# every output mode; with --outdir the line names the file.
source "$(dirname "$0")/../lib/common.sh"

for mode in "" -N -b --json; do
  "$PDX" -R exec -w 'h[1-4]' $mode 'echo hi' </dev/null >/dev/full 2>"$SCRATCH/stderr"
  status=$?
  err=$(cat "$SCRATCH/stderr")
  expect_status 1
  expect_eq "$err" "pdx: error: cannot write to standard output: No space left on device" \
    "stderr ($mode)"
done

# A file size limit makes writes to the output files fail (EFBIG once SIGXFSZ is ignored).
(
  trap '' XFSZ
  ulimit -f 8
  exec "$PDX" -R exec -w h1 --outdir "$SCRATCH/out" 'head -c 100000 /dev/zero'
) </dev/null >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
status=$?
err=$(cat "$SCRATCH/stderr")
expect_status 1
expect_eq "$err" "pdx: error: cannot write to $SCRATCH/out/h1.out: File too large" "--outdir"
