# pdx verify under -R exec: a tree with awkward names matches itself, with and without --hash;
# a host's listing is untrusted (a `find` that lies is refused, named); usage errors.
source "$(dirname "$0")/../lib/common.sh"

src=$SCRATCH/src
mkdir -p "$src/sub dir"
printf abc > "$src/it's \"q\""
printf 'new
line' > "$src/sub dir/new
line"
printf x > "$src/-lead"
ln -s -- "-lead" "$src/link"  # not a regular file: left out on both sides

run_pdx verify -R exec -w 'h[1-4]' "$src" --against "$src" --hash
expect_status 0
expect_eq "$err" "pdx: h[1-4]: match: 3 files, 12 B" "report"
run_pdx verify -R exec -w 'h[1-4]' "$src"
expect_status 0
expect_contains "$err" "pdx: h[1-4]: 3 files, 12 B, listing " "report"

# A reference with one file more and one changed: named as such.
cp -r "$src" "$SCRATCH/ref"
printf y > "$SCRATCH/ref/-lead"
printf more > "$SCRATCH/ref/more"
run_pdx verify -R exec -w h1 "$src" --against "$SCRATCH/ref" --hash
expect_status 1
expect_eq "$err" "pdx: h1: differs: 1 missing (more), 1 changed (-lead)" "report"

# A host whose listing holds a name with '..': refused, not counted.
mkdir -p "$SCRATCH/bin"
printf '#!/bin/sh\nprintf "s 1 ../../etc/passwd\\0"\n' > "$SCRATCH/bin/find"
chmod +x "$SCRATCH/bin/find"
PATH=$SCRATCH/bin:$PATH run_pdx verify -R exec -w h1 "$src" --against "$src"
expect_status 1
expect_contains "$err" "pdx: h1: malformed listing from the host (unsafe name): s 1 ../../etc/passwd"

# Usage errors: exit 2, one line.
run_pdx verify -R exec -w h1
expect_usage_error
run_pdx verify -R exec -w h1 "$src" --against "$SCRATCH/none"
expect_usage_error
run_pdx verify -R exec -w h1 "$src" -m "$SCRATCH/none.manifest"
expect_usage_error
run_pdx verify -R exec -w h1 "$src" -m "$SCRATCH/x" --against "$src"
expect_usage_error
run_pdx verify -R exec -w h1 "$src" -m "$SCRATCH/x" --hash
expect_usage_error
expect_contains "$err" "a manifest holds no hashes of files"
true
