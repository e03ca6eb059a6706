# pdx push sends a sparse file's holes as holes: only its data goes on the wire (a 1 GiB file
# with a few KiB of data is a stream of a few KiB), the host's copy is sparse too, byte for byte
# the same (its XXH3-128 checked on the host over the whole file, zeros included).
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
mkdir -p "$SCRATCH/src" "$SCRATCH/bin"
f=$SCRATCH/src/sparse
printf 'head' > "$f"
printf 'middle' | dd of="$f" bs=1 seek=$((512 << 20)) conv=notrunc status=none
truncate -s 1G "$f"
(( $(stat -c %b "$f") * 512 < 1 << 20 )) || { echo "SKIP [$TEST_NAME]: no holes on this filesystem"; exit 0; }

# The agent, run through a wrapper that keeps what it is sent: the stream's bytes.
printf '#!/bin/sh
case "$*" in *--receive=*) cat > %q; exec %q "$@" < %q ;; esac
exec %q "$@"\n' "$SCRATCH/stream" "$PDX" "$SCRATCH/stream" "$PDX" > "$SCRATCH/bin/agent"
chmod +x "$SCRATCH/bin/agent"

# -u: the stream goes to an agent of its own, not to the one that listed (whose stdin the
# wrapper would hold before its listing).
run_pdx -R exec -w h1 -u 3600 push --agent "$SCRATCH/bin/agent" "$SCRATCH/src" "$SCRATCH/dest/"
expect_status 0
expect_eq "$out" "pdx: h1: 1.0 GiB in 1 file" "summary"
sent=$(stat -c %s "$SCRATCH/stream")
(( sent < 65536 )) || fail "$sent bytes on the wire for 10 bytes of data"
cmp "$f" "$SCRATCH/dest/src/sparse" || fail "not the same bytes"
(( $(stat -c %b "$SCRATCH/dest/src/sparse") * 512 < 1 << 20 )) || fail "the host's copy is not sparse"
