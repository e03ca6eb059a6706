# pdx sync --relay with -R exec (each host a directory here, every agent on 127.0.0.1): changed
# files patched and missing ones sent through the chain (or a tree), in waves of -f hosts, the
# report a star sync gives; a relay that cannot link up goes from here, said once.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
make_tree "$SCRATCH/src"
head -c 3000000 /dev/urandom > "$SCRATCH/src/data"
run_pdx -R exec -w 'h[1-5]' sync --relay "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-5]: 9 files sent whole (5.9 MiB)" "first sync"
expect_eq "$err" "" "nothing on stderr"

# stale: an edit of the big file and a new file, an mtime the hosts' copies do not have.
stale() {
  printf '%s' "$1" | dd of="$SCRATCH/src/data" bs=1 seek="$2" conv=notrunc status=none
  touch -d "@$(( 1000000000 + $2 ))" "$SCRATCH/src/data"
  printf "%s\n" "$1" > "$SCRATCH/src/new"
  touch -d "@$(( 1000000000 + $2 ))" "$SCRATCH/src/new"
}
stale EDIT1 1000
# -f 2: waves of 2, 2 and 1 hosts, the last alone (sent from here).
run_pdx -R exec -f 2 -w 'h[1-5]' sync --relay "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 0
expect_contains "$out" "pdx: h[1-5]: 1 file patched (2.9 MiB, " "patched"
expect_contains "$out" "1 file sent whole (6 B)"
expect_eq "$err" "" "nothing on stderr"
for h in h1 h2 h3 h4 h5; do same_tree "$SCRATCH/src" "$SCRATCH/d/$h/src"; done

stale EDIT2 2000000
run_pdx -R exec -w 'h[1-5]' sync --relay=tree:3 "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 0
expect_contains "$out" "pdx: h[1-5]: 2 files patched" "a tree"
for h in h1 h2 h3 h4 h5; do same_tree "$SCRATCH/src" "$SCRATCH/d/$h/src"; done
no_leftovers "$SCRATCH/d"

# One port for every agent, already taken: the relay cannot link up; both patches go from here,
# and a new file that h3 already has goes to h1 and h2 from here, a group of other hosts: still
# one line for the run.
stale EDIT3 2500000
printf 'only\n' > "$SCRATCH/src/only"
cp -p "$SCRATCH/src/only" "$SCRATCH/d/h3/src/only"
hold_port
run_pdx -R exec -w 'h[1-3]' sync --relay --relay-bind 127.0.0.1 --relay-ports "$held_port" \
  "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 0
release_port
expect_contains "$out" "pdx: h[1-2]: 2 files patched (" "h1 and h2 patched"
expect_contains "$out" "1 file sent whole (5 B)" "h1 and h2 sent only"
expect_contains "$out" "pdx: h3: 2 files patched (" "h3 patched alone"
expect_contains "$err" "pdx: warning: h[1-3]: the relay could not link up (h"
expect_eq "$(grep -c warning <<< "$err")" 1 "said once for both groups"
for h in h1 h2 h3; do same_tree "$SCRATCH/src" "$SCRATCH/d/$h/src"; done

run_pdx -R exec -w h1 sync --relay=star "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 2
expect_eq "$err" "pdx: error: --relay: 'star' is neither chain nor tree:K with K in 2-16"
true
