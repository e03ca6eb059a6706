# Shared by tests/cli/pdsh_*.sh and dshbak.sh: pdx under the names pdsh and dshbak (links in
# $SCRATCH/bin, as `pdx --compat-dir` holds them), and Debian's pdsh to compare with.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

mkdir -p "$SCRATCH/bin"
ln -s "$PDX" "$SCRATCH/bin/pdsh"
ln -s "$PDX" "$SCRATCH/bin/dshbak"
PDSH=$SCRATCH/bin/pdsh
DSHBAK=$SCRATCH/bin/dshbak
REAL_PDSH=$(command -v /usr/bin/pdsh || true)     # empty where pdsh is not installed
REAL_DSHBAK=$(command -v /usr/bin/dshbak || true)

# run_pdsh ARGS...: pdx as pdsh, stdin from /dev/null; sets $out, $err, $status as run_pdx does.
run_pdsh() {
  "$PDSH" "$@" < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
  status=$?
  out=$(cat "$SCRATCH/stdout")
  err=$(cat "$SCRATCH/stderr")
}

# run_real_pdsh ARGS...: the same with Debian's pdsh; sets $real_out, $real_err, $real_status.
run_real_pdsh() {
  "$REAL_PDSH" "$@" < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
  real_status=$?
  real_out=$(cat "$SCRATCH/stdout")
  real_err=$(cat "$SCRATCH/stderr")
}

# expect_pdsh_usage_error: pdsh's exit status 1 for a usage error, with pdx's one-line error.
expect_pdsh_usage_error() {
  expect_status 1
  [[ "$err" == "pdx: error: "* ]] || fail "stderr does not start with 'pdx: error:': [$err]"
  expect_lines "$err" 1 "usage error message"
}

# finish_job: waits for $job, pdx run in the background with its stdout and stderr in
# $SCRATCH/out and err; sets $out, $err, $status as run_pdx does.
finish_job() {
  wait "$job"
  status=$?
  out=$(cat "$SCRATCH/out")
  err=$(cat "$SCRATCH/err")
}
