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

# A part left out of a set with no part headers (tar.xz): every host says the stream is
# damaged, naming its DEST; exit 1.
(cd "$SCRATCH" && "$PDX" pack src -o data.tar.xz --split 1M) > /dev/null || fail "pack failed"
run_pdx -R exec -w 'h[1-2]' push --extract "$SCRATCH/data.tar.xz.part-0" "$SCRATCH/cut/%h"
expect_status 1
expect_contains "$err" "pdx: h1: archive stream: xz data ends early"
expect_contains "$err" "($SCRATCH/cut/h2)"

# Parts of a tar.zst carry their set's id and index: a part left out, or one of another pack,
# is refused naming it before any host is reached, as unpack refuses it.
run_pdx -R exec -w 'h[1-2]' push --extract "${parts[0]}" "${parts[2]}" "$SCRATCH/gap/%h"
expect_status 2
expect_contains "$err" "pdx: error: ${parts[2]}: is part 2 of pack"
expect_contains "$err" "part 1 is missing"
[[ ! -e $SCRATCH/gap ]] || fail "something was written in gap"
mkdir "$SCRATCH/src/more" && echo other >"$SCRATCH/src/more/file"
(cd "$SCRATCH" && "$PDX" pack src -o other.tar.zst --split 1M) > /dev/null || fail "pack failed"
run_pdx -R exec -w 'h[1-2]' push --extract "${parts[0]}" "$SCRATCH/other.tar.zst.part-1" \
  "${parts[@]:2}" "$SCRATCH/mixed/%h"
expect_status 2
expect_contains "$err" "pdx: error: $SCRATCH/other.tar.zst.part-1: is part 1 of another pack"
[[ ! -e $SCRATCH/mixed ]] || fail "something was written in mixed"

# -m MANIFEST checks each part's size and SHA-256 first: a part changed since it was packed is
# refused before any host is reached.
(cd "$SCRATCH" && "$PDX" pack src -o m.tar --split 1M -m m.manifest) > /dev/null || fail "pack failed"
flip_byte "$SCRATCH/m.tar.part-1" 4000
run_pdx -R exec -w 'h[1-2]' push --extract -m "$SCRATCH/m.manifest" "$SCRATCH"/m.tar.part-* \
  "$SCRATCH/changed/%h"
expect_status 2
expect_contains "$err" "pdx: error: $SCRATCH/m.tar.part-1: SHA-256 differs from the manifest's"
[[ ! -e $SCRATCH/changed ]] || fail "something was written in changed"
