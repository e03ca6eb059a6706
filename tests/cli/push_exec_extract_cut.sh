# pdx push --extract of an archive stream that does not arrive whole: the agent unpacks into a
# hidden directory in DEST and moves the entries into place only after the archive's end marker
# and a clean unpack. A part that cannot be read midway (pdx sends no end marker after a read
# error) and pdx killed mid-stream both leave DEST as it was; a whole archive is merged into
# existing directories, and never written through a symlink in DEST.
source "$(dirname "$0")/../lib/extract_midway.sh"
export HOME=$SCRATCH/home
make_cut_archive  # src/a and b, whole.tar, part-0: its first entry

# /proc/self/mem: a regular file (of size 0) whose first read fails (EIO), as a failing disk's.
for h in h1 h2; do mkdir -p "$SCRATCH/cut/$h" && echo old > "$SCRATCH/cut/$h/keep"; done
run_pdx -R exec -w 'h[1-2]' push --extract "$SCRATCH/part-0" /proc/self/mem "$SCRATCH/cut/%h"
expect_status 1
expect_eq "$out" "" "summary"
expect_eq "$err" "$(printf '%s\n' \
  "pdx: h1: the stream from pdx was cut short; nothing was placed ($SCRATCH/cut/h1)" \
  "pdx: h2: the stream from pdx was cut short; nothing was placed ($SCRATCH/cut/h2)" \
  "pdx: error: /proc/self/mem: read failed: Input/output error")" "stderr"
for h in h1 h2; do
  expect_eq "$(ls -A "$SCRATCH/cut/$h")" "keep" "$h: DEST after a cut stream"
done

# Relayed host to host: the same.
run_pdx -R exec -w 'h[1-3]' push --relay --extract "$SCRATCH/part-0" /proc/self/mem \
  "$SCRATCH/relay/%h"
expect_status 1
for h in h1 h2 h3; do
  expect_contains "$err" \
    "pdx: $h: the stream from pdx was cut short; nothing was placed ($SCRATCH/relay/$h)"
  expect_eq "$(ls -A "$SCRATCH/relay/$h")" "" "$h: DEST after a cut relayed stream"
done

# pdx killed mid-stream, once the host has unpacked a file (into DEST before): the agent sees its input end, and
# places nothing. The archive comes through standard input, half of it, then nothing.
extract_midway "$SCRATCH/kill"
kill -KILL "$pdx_pid"
extract_midway_end
for _ in $(seq 1 200); do
  [[ -z $(pgrep -f -- "$SCRATCH/kill/h1") ]] && break
  sleep 0.05
done
expect_eq "$(ls -A "$SCRATCH/kill/h1")" "" "DEST after pdx was killed"

# The whole archive: merged into DEST's existing directory, the rest left as it was.
mkdir -p "$SCRATCH/src/d" "$SCRATCH/merge/h1/d"
echo new > "$SCRATCH/src/d/n"
echo other > "$SCRATCH/merge/h1/d/o"
tar -c -f "$SCRATCH/dir.tar" -C "$SCRATCH/src" a b d || fail "tar failed"
run_pdx -R exec -w h1 push --extract "$SCRATCH/dir.tar" "$SCRATCH/merge/%h"
expect_status 0
expect_eq "$out" "pdx: h1: 1006 B in 3 files" "summary (merge)"
expect_eq "$(cd "$SCRATCH/merge/h1" && find . | sort | tr '\n' ' ')" \
  ". ./a ./b ./d ./d/n ./d/o " "merged tree"
cmp "$SCRATCH/src/a" "$SCRATCH/merge/h1/a" || fail "a differs"

# DEST/d a symlink: not written through.
mkdir -p "$SCRATCH/link/h1" "$SCRATCH/elsewhere"
ln -s "$SCRATCH/elsewhere" "$SCRATCH/link/h1/d"
run_pdx -R exec -w h1 push --extract "$SCRATCH/dir.tar" "$SCRATCH/link/%h"
expect_status 1
expect_contains "$err" "pdx: h1: a symlink on the way is not followed ($SCRATCH/link/h1/d)"
[[ -z $(ls -A "$SCRATCH/elsewhere") ]] || fail "written through a symlink"
[[ -z $(find "$SCRATCH" -name '.extract.pdx-*') ]] || fail "hidden directory left"
