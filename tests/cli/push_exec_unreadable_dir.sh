# A subdirectory of a pushed tree that cannot be read here is named in an error, the rest of the
# tree is sent, and the push exits 1 (as for an unreadable file); a re-run says the same. sync
# likewise, and its --delete leaves the hosts' copy of that directory alone.
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || { echo "SKIP [$TEST_NAME]: needs root, to run pdx as nobody"; exit 0; }
public=$(mktemp -d /tmp/pdx-$TEST_NAME.XXXXXX)
trap 'rm -rf "$SCRATCH" "$public"' EXIT
src=$public/src
mkdir -p "$src/ok" "$src/secret/inner" "$public/home" "$public/dest/src/secret"
echo a > "$src/ok/a"
echo top > "$src/top"
echo hidden > "$src/secret/inner/s"
echo kept > "$public/dest/src/secret/was-there"
cp "$PDX" "$public/pdx"
chown -R nobody "$public"
chmod 000 "$src/secret"

as_nobody() {
  HOME=$public/home setpriv --reuid=nobody --regid=nogroup --clear-groups "$public/pdx" "$@" \
    < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
  status=$?
  out=$(cat "$SCRATCH/stdout")
  err=$(cat "$SCRATCH/stderr")
}

as_nobody -R exec -w h1 push "$src" "$public/dest/"
expect_status 1
expect_eq "$err" "pdx: error: $src/secret: Permission denied" "the error names the subdirectory"
expect_eq "$(cat "$public/dest/src/ok/a")" a "the rest was sent"
expect_eq "$(cat "$public/dest/src/top")" top "the rest was sent"
as_nobody -R exec -w h1 push "$src" "$public/dest/"
expect_status 1
expect_contains "$out" "up to date"
expect_eq "$err" "pdx: error: $src/secret: Permission denied" "again"

echo b > "$src/ok/b"
as_nobody -R exec -w h1 sync --delete "$src" "$public/dest/"
expect_status 1
expect_eq "$err" "pdx: error: $src/secret: Permission denied" "sync names it too"
expect_eq "$(cat "$public/dest/src/ok/b")" b "sync sent the rest"
expect_eq "$(cat "$public/dest/src/secret/was-there")" kept "--delete left the directory alone"
