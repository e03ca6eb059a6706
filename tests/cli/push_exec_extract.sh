# pdx push --extract: the parts of a split archive streamed once and unpacked on every host.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
make_tree "$SCRATCH/src"
(cd "$SCRATCH" && "$PDX" pack src -o data.tar.zst --split 1M) > /dev/null || fail "pack failed"
parts=("$SCRATCH"/data.tar.zst.part-*)
(( ${#parts[@]} > 1 )) || fail "expected several parts"

run_pdx -R exec -w 'h[1-3]' push --extract "${parts[@]}" "$SCRATCH/out/%h"
expect_status 0
expect_eq "$out" "pdx: h[1-3]: 3.0 MiB in 8 files" "summary"
for h in h1 h2 h3; do same_tree "$SCRATCH/src" "$SCRATCH/out/$h/src"; done

# A part left out: every host says the stream is damaged, naming its DEST; exit 1.
run_pdx -R exec -w 'h[1-2]' push --extract "${parts[0]}" "$SCRATCH/cut/%h"
expect_status 1
expect_contains "$err" "pdx: h1: archive stream: zstd data ends early"
expect_contains "$err" "($SCRATCH/cut/h2)"
