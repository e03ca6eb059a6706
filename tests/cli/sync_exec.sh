# pdx sync with -R exec (each host a directory here): missing files go whole, changed ones as
# deltas, hosts with different old copies each get their own delta, and the result is the
# source byte for byte, modes and mtimes too; then "up to date"; --dry-run changes nothing.
source "$(dirname "$0")/../lib/push_common.sh"
make_tree "$SCRATCH/src"
head -c 5000000 /dev/urandom > "$SCRATCH/src/data"
mkdir "$SCRATCH/src/empty"

run_pdx -R exec -w 'h[1-3]' sync "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 0
expect_contains "$out" "pdx: h[1-3]: 9 files sent whole" "first sync"
for h in h1 h2 h3; do same_tree "$SCRATCH/src" "$SCRATCH/d/$h/src"; done

# Edits here; h3 holds another old copy of the big file (its own group).
printf 'EDITED' | dd of="$SCRATCH/src/data" bs=1 seek=1000 conv=notrunc status=none
printf 'EDITED' | dd of="$SCRATCH/src/data" bs=1 seek=4000000 conv=notrunc status=none
touch -d '2003-01-01' "$SCRATCH/src/data"  # an mtime the hosts' copies do not have
printf 'more\n' >> "$SCRATCH/src/plain"
printf 'h3' | dd of="$SCRATCH/d/h3/src/data" bs=1 seek=2500000 conv=notrunc status=none
touch -d '2001-01-01' "$SCRATCH/d/h3/src/data"  # not the source's mtime, whatever the clock
rm "$SCRATCH/d/h2/src/with space"
rmdir "$SCRATCH/d/h1/src/empty"  # only a directory to make: push's pass still runs

run_pdx -R exec -w 'h[1-3]' sync --dry-run "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 0
expect_contains "$out" "pdx: h[1-3]: would patch src/data"
expect_contains "$out" "pdx: h[1-3]: would patch src/plain"
expect_contains "$out" "pdx: h2: would send src/with space"
[[ ! -e "$SCRATCH/d/h2/src/with space" ]] || fail "--dry-run changed a host"
cmp -s "$SCRATCH/src/data" "$SCRATCH/d/h1/src/data" && fail "--dry-run patched a file"

run_pdx -R exec -w 'h[1-3]' sync "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 0
for h in h1 h3; do
  [[ $(grep "^pdx: $h: " <<< "$out") =~ ^pdx:\ $h:\ 2\ files\ patched\ \(4\.8\ MiB,\ ([0-9.]+)\ KiB\ sent\)$ ]] ||
    fail "$h not reported as patched: $out"
  (( ${BASH_REMATCH[1]%.*} < 64 )) || fail "$h: the delta is not small: $out"
done
expect_contains "$out" "pdx: h2: 2 files patched (4.8 MiB, " "h2"
expect_contains "$out" ", 1 file sent whole (6 B)" "h2's missing file"
for h in h1 h2 h3; do
  same_tree "$SCRATCH/src" "$SCRATCH/d/$h/src"
  no_leftovers "$SCRATCH/d/$h"
done

run_pdx -R exec -w 'h[1-3]' sync "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-3]: up to date"

# One file SRC to a file DEST (rsync's "as"), patched in place.
head -c 100000 /dev/urandom > "$SCRATCH/one"
run_pdx -R exec -w h1 sync "$SCRATCH/one" "$SCRATCH/d/one"
expect_status 0
printf 'x' | dd of="$SCRATCH/one" bs=1 seek=50000 conv=notrunc status=none
touch -d '2002-01-01' "$SCRATCH/one"
run_pdx -R exec -w h1 sync "$SCRATCH/one" "$SCRATCH/d/one"
expect_status 0
expect_contains "$out" "pdx: h1: 1 file patched (97.7 KiB, "
cmp "$SCRATCH/one" "$SCRATCH/d/one" || fail "DEST not patched as a file"

run_pdx sync
expect_usage_error
