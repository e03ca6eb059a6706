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

# Parts of a tar.xz carry nothing of their set, but their set file beside them lists them: the
# last parts left out are refused naming the first missing, before any host is reached, as
# unpack refuses them. A glob that sweeps the set file up pushes the parts alone.
(cd "$SCRATCH" && "$PDX" pack src -o data.tar.xz --split 1M) > /dev/null || fail "pack failed"
run_pdx -R exec -w 'h[1-2]' push --extract "$SCRATCH/data.tar.xz.part-0" "$SCRATCH/cut/%h"
expect_status 2
expect_contains "$err" \
  "pdx: error: missing part $SCRATCH/data.tar.xz.part-1: $SCRATCH/data.tar.xz-set lists 4 parts, 1 given"
[[ ! -e $SCRATCH/cut ]] || fail "something was written in cut"
run_pdx -R exec -w 'h[1-2]' push --extract "$SCRATCH"/data.tar.xz* "$SCRATCH/xz/%h"
expect_status 0
for h in h1 h2; do same_tree "$SCRATCH/src" "$SCRATCH/xz/$h/src"; done
# Without it (the parts of an older pdx), every host says the stream is damaged, naming its
# DEST; exit 1.
mv "$SCRATCH/data.tar.xz-set" "$SCRATCH/away"
run_pdx -R exec -w 'h[1-2]' push --extract "$SCRATCH/data.tar.xz.part-0" "$SCRATCH/cut/%h"
expect_status 1
expect_contains "$err" "pdx: h1: archive stream: xz data ends early"
expect_contains "$err" "($SCRATCH/cut/h2)"
mv "$SCRATCH/away" "$SCRATCH/data.tar.xz-set"

# Parts of a tar.zst carry their set's id and index: a part left out, or one of another pack,
# is refused naming it before any host is reached, as unpack refuses it.
run_pdx -R exec -w 'h[1-2]' push --extract "${parts[0]}" "${parts[2]}" "$SCRATCH/gap/%h"
expect_status 2
expect_contains "$err" "pdx: error: missing part ${parts[1]} (before ${parts[2]})"
[[ ! -e $SCRATCH/gap ]] || fail "something was written in gap"
cp "${parts[2]}" "$SCRATCH/renamed.part-1"
cp "${parts[0]}" "$SCRATCH/renamed.part-0"
run_pdx -R exec -w 'h[1-2]' push --extract "$SCRATCH"/renamed.part-* "$SCRATCH/gap/%h"
expect_status 2
expect_contains "$err" "pdx: error: $SCRATCH/renamed.part-1: is part 2 of pack"
expect_contains "$err" "part 1 is missing"
[[ ! -e $SCRATCH/gap ]] || fail "something was written in gap"
mkdir "$SCRATCH/src/more" && echo other >"$SCRATCH/src/more/file"
(cd "$SCRATCH" && "$PDX" pack src -o other.tar.zst --split 1M) > /dev/null || fail "pack failed"
run_pdx -R exec -w 'h[1-2]' push --extract "${parts[0]}" "$SCRATCH/other.tar.zst.part-1" \
  "${parts[@]:2}" "$SCRATCH/mixed/%h"
expect_status 2
expect_contains "$err" "pdx: error: $SCRATCH/other.tar.zst.part-1: is part 1 of another pack"
[[ ! -e $SCRATCH/mixed ]] || fail "something was written in mixed"
# A tar.xz part of another pack, of the same size (every part but the last is 1M): refused by
# the hash its set file lists.
(cd "$SCRATCH" && "$PDX" pack src -o other.tar.xz --split 1M) > /dev/null || fail "pack failed"
mkdir "$SCRATCH/mix"
cp "$SCRATCH"/data.tar.xz* "$SCRATCH/mix/"
cp "$SCRATCH/other.tar.xz.part-0" "$SCRATCH/mix/data.tar.xz.part-0"
run_pdx -R exec -w 'h[1-2]' push --extract "$SCRATCH/mix/data.tar.xz" "$SCRATCH/mixed/%h"
expect_status 2
expect_contains "$err" \
  "pdx: error: $SCRATCH/mix/data.tar.xz.part-0: not the part $SCRATCH/mix/data.tar.xz-set lists"
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
