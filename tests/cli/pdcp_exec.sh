# pdx as pdcp and rpdcp with -R exec: files and (-r) trees to every host, gathered back as
# DIR/NAME.HOST, -x, a directory without -r, usage errors.
source "$(dirname "$0")/../lib/pdsh_common.sh"

ln -s "$PDX" "$SCRATCH/bin/pdcp"
ln -s "$PDX" "$SCRATCH/bin/rpdcp"
run_as() {
  "$SCRATCH/bin/$1" "${@:2}" < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
  status=$?
  out=$(cat "$SCRATCH/stdout")
  err=$(cat "$SCRATCH/stderr")
}

src=$SCRATCH/src
mkdir -p "$src/tree/sub" "$SCRATCH/dst"
echo one > "$src/file"
echo deep > "$src/tree/sub/x"
chmod 0750 "$src/file"

# pdcp: -R exec hosts are all this machine, so each gets a path of its own (%h, pdx push's).
run_as pdcp -R exec -w 'h[1-3]' -x h2 -r -p "$src/file" "$src/tree" "$SCRATCH/dst/%h/"
expect_status 0
expect_eq "$out$err" "" "pdcp is silent"
expect_eq "$(cat "$SCRATCH/dst/h1/file")" one "h1's file"
expect_eq "$(cat "$SCRATCH/dst/h3/tree/sub/x")" deep "h3's tree"
expect_eq "$(stat -c %a "$SCRATCH/dst/h3/file")" 750 "mode kept"
expect_eq "$(ls "$SCRATCH/dst")" "$(printf 'h1\nh3')" "-x h2"

# One file to a new name, as cp.
run_as pdcp -R exec -w h1 "$src/file" "$SCRATCH/dst/renamed"
expect_status 0
expect_eq "$(cat "$SCRATCH/dst/renamed")" one "file to a new name"

# Usage errors exit 1, as Debian's pdcp and rpdcp (pdsh 2.34) exit for theirs.
run_as pdcp -R exec -w h1 "$src/tree" "$SCRATCH/dst/t"
expect_status 1
expect_eq "$err" "pdx: error: $src/tree: is a directory (copy it with -r)"
[[ ! -e $SCRATCH/dst/t ]] || fail "nothing written without -r"

# rpdcp: every host's file and tree into DIR as NAME.HOST.
mkdir "$SCRATCH/back"
run_as rpdcp -R exec -w 'n1,a.b.c' -r "$src/file" "$src/tree" "$SCRATCH/back"
expect_status 0
expect_eq "$out$err" "" "rpdcp is silent"
expect_eq "$(cd "$SCRATCH/back" && ls)" "$(printf 'file.a.b.c\nfile.n1\ntree.a.b.c\ntree.n1')" "NAME.HOST"
expect_eq "$(cat "$SCRATCH/back/tree.n1/sub/x")" deep "n1's tree"
expect_eq "$(cat "$SCRATCH/back/file.a.b.c")" one "a.b.c's file"

run_as rpdcp -R exec -w n1 "$src/none" "$SCRATCH/back"
expect_status 1
expect_contains "$err" "none: Cannot stat"

run_as rpdcp -R exec -w n1 "$src/file" "$SCRATCH/missing"
expect_status 1
expect_eq "$err" "pdx: error: $SCRATCH/missing: is not a directory (rpdcp gathers into one)"

# Usage errors and -h.
run_as pdcp -R exec -w n1 "$src/file"
expect_status 1
expect_eq "$err" "pdx: error: give at least one source and a destination; see 'pdcp -h'"
# An empty DEST, as pdx push's: nothing sent (not the home directory, as an empty path would be).
run_as pdcp -R exec -w n1 "$src/file" ""
expect_status 1
expect_eq "$err" "pdx: error: DEST is empty: name a directory or file on the hosts ('.' for the home directory)"
run_as rpdcp -R exec -w n1 "$src/file" ""
expect_status 1
expect_eq "$err" "pdx: error: DIR is empty: name a local directory to gather into"
run_as rpdcp -Z -w n1 a b
expect_status 1
expect_eq "$err" "pdx: error: rpdcp option -Z is unknown or not one pdx has; see 'rpdcp -h'"
run_as pdcp -R rsh -w n1 a b
expect_status 1
expect_contains "$err" "rcmd module 'rsh'"
run_as pdcp -h
expect_status 0
expect_contains "$out" "Usage: pdcp"

# -q: pdsh's listing with pdcp's part, as Debian's pdcp prints it (but the program's path and
# the rcmd module's default, ssh here, rsh there); nothing is copied. rpdcp too.
run_as pdcp -R exec -w h1,h2,h1 -r -p -q "$src/file" "$src/tree" "$SCRATCH/q/%h"
expect_status 0
expect_eq "$(sed -n 1,5p "$SCRATCH/stdout")" "$(printf -- '-- PCP-specific options --
Infile(s)\t\t%s, %s
Outfile\t\t\t%s
Recursive\t\tYes
Preserve mod time/mode\tYes' "$src/file" "$src/tree" "$SCRATCH/q/%h")" "pdcp -q"
expect_eq "$(sed -n 6p "$SCRATCH/stdout")" "$(printf 'Full program pathname\t%s' "$SCRATCH/bin/pdcp")"
expect_eq "$(tail -2 "$SCRATCH/stdout")" "$(printf -- '-- Target nodes --\nh[1-2,1]')" "pdcp -q hosts"
[[ ! -e $SCRATCH/q ]] || fail "pdcp -q copied something"
if [[ -x /usr/bin/pdcp ]]; then
  /usr/bin/pdcp -w h1,h2,h1 -r -p -q "$src/file" "$src/tree" "$SCRATCH/q/%h" > "$SCRATCH/theirs"
  diff <(grep -v "program path\|Rcmd type" "$SCRATCH/theirs") \
    <(grep -v "program path\|Rcmd type" "$SCRATCH/stdout") || fail "pdcp -q differs from Debian's"
fi
run_as rpdcp -R exec -w h1 -q /etc/hostname "$SCRATCH/dst"
expect_status 0
expect_eq "$(sed -n 4p "$SCRATCH/stdout")" "$(printf 'Recursive\t\tNo')" "rpdcp -q"
