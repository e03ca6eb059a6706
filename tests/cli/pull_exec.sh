# pdx pull under -R exec: a file and a tree from 8 hosts into LOCAL/<host>/, names that a shell
# or tar could misread, a trailing / for a directory's contents, labels that are not directory
# names, per-file failures, usage errors.
source "$(dirname "$0")/../lib/common.sh"

src=$SCRATCH/src
mkdir -p "$src/tree/sub dir" "$src/-opt"
echo one > "$src/file.log"
printf 'q' > "$src/tree/it's \"quoted\" \$(x)"
printf 'n' > "$src/tree/sub dir/new
line"
printf 'd' > "$src/tree/-leading"
printf 'o' > "$src/-opt/-f"

run_pdx pull -R exec -w 'h[1-8]' "$src/file.log" "$src/tree" "$SCRATCH/out"
expect_status 0
expect_eq "$err" "pdx: h[1-8]: pulled" "summary"
for n in 1 8; do
  expect_eq "$(cat "$SCRATCH/out/h$n/file.log")" one "h$n's file"
  expect_eq "$(cat "$SCRATCH/out/h$n/tree/it's \"quoted\" \$(x)")" q "h$n: quoted name"
  expect_eq "$(cat "$SCRATCH/out/h$n/tree/sub dir/new
line")" n "h$n: newline in a name"
  expect_eq "$(cat "$SCRATCH/out/h$n/tree/-leading")" d "h$n: leading -"
done
expect_eq "$(ls "$SCRATCH/out" | wc -l)" 8 "host directories"

# A trailing /: the directory's contents; a path that starts with '-' (after --); relative to
# the "home" (here the working directory).
cd "$src"
run_pdx pull -R exec -w h1 -- -opt/ tree/ "$SCRATCH/out2"
expect_status 0
expect_eq "$(cat "$SCRATCH/out2/h1/-f")" o "contents of -opt/"
expect_eq "$(cat "$SCRATCH/out2/h1/-leading")" d "contents of tree/"

# Labels that are not safe directory names get %XX for the other bytes; '%' in a path is
# taken as written, not as -R exec's %h.
echo pct > "$src/100%h"
run_pdx pull -R exec -w 'u@[::1]:2222,n1:22' "$src/100%h" "$SCRATCH/out3"
expect_status 0
expect_eq "$(cat "$SCRATCH/out3/u@%5B%3A%3A1%5D%3A2222/100%h")" pct "v6 label's directory"
expect_eq "$(cat "$SCRATCH/out3/n1%3A22/100%h")" pct "port label's directory"

# A missing file fails its hosts, named; what exists is still pulled.
run_pdx pull -R exec -w 'h[1-3]' "$src/file.log" "$src/none" "$SCRATCH/out4"
expect_status 1
expect_contains "$err" "pdx: h[1-3]: tar: ./none: Cannot stat: No such file or directory" "summary"
expect_eq "$(cat "$SCRATCH/out4/h2/file.log")" one "the file that exists"

# Usage errors.
run_pdx pull -R exec -w h1 "$SCRATCH/out5"
expect_usage_error
run_pdx pull -R exec -w h1 "$src/.." "$SCRATCH/out5"
expect_usage_error
expect_contains "$err" "ends in '..'"
run_pdx pull -R exec -w h1 "" "$SCRATCH/out5"
expect_usage_error
[[ ! -e $SCRATCH/out5 ]] || fail "a usage error made the local directory"
true
