# pdx push --no-agent --extract of parts that cannot all be read: the hosts' sh and tar receive
# the archive cut short, here at an entry's end, which GNU tar takes as whole; the hosts count
# the bytes against the parts' size, place nothing and say so in one line; pdx names the part.
# A part that is not a regular file (standard input) has no size to tell first: refused. The
# whole archive still goes in.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
make_cut_archive  # src/a and b, whole.tar, part-0: its first entry
warning="pdx: warning: h[1-2]: the agent cannot run there (--no-agent); pushing with the host's sh and tar (slower)"

# /proc/self/mem: a regular file (of size 0) whose first read fails (EIO), as a failing disk's.
run_pdx -R exec -w 'h[1-2]' push --no-agent --extract "$SCRATCH/part-0" /proc/self/mem "$SCRATCH/out/%h"
expect_status 1
expect_eq "$out" "" "summary"
expect_eq "$err" "$(printf '%s\n' "$warning" \
  "pdx: h[1-2]: the stream from pdx was cut short; nothing was placed" \
  "pdx: error: /proc/self/mem: read failed: Input/output error")" "stderr"
for h in h1 h2; do
  [[ -z $(ls -A "$SCRATCH/out/$h") ]] || fail "$h: placed from a cut stream: $(ls -A "$SCRATCH/out/$h")"
done

run_pdx -R exec -w h1 push --no-agent --extract - "$SCRATCH/stdin"
expect_status 1
expect_eq "$err" "$(printf '%s\n' "${warning/h\[1-2\]/h1}" \
  "pdx: h1: -: not a regular file; hosts without the agent need the archive's size first")" "stdin"
[[ ! -e $SCRATCH/stdin ]] || fail "a host was written to from standard input"

run_pdx -R exec -w 'h[1-2]' push --no-agent --extract "$SCRATCH/whole.tar" "$SCRATCH/out/%h"
expect_status 0
expect_eq "$out" "pdx: h[1-2]: 1002 B in 2 files" "summary (whole)"
for h in h1 h2; do
  same_tree "$SCRATCH/src" "$SCRATCH/out/$h"
  [[ -z $(find "$SCRATCH/out" -name '.push.pdx-*') ]] || fail "temporary directory left"
done
