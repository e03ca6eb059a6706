# pdx sync --relay with a host killed mid-chain, as push_exec_relay_bridge.sh: its neighbours
# bridge it, it alone is reported failed, the host before it says in a warning that it bridged,
# and the others have the file whole; the head killed, pdx bridges around it.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
mkdir "$SCRATCH/src"
head -c $((96 << 20)) /dev/urandom > "$SCRATCH/src/huge"

# h2's agent killed 16 MiB in (read twice: 32 MiB).
run_killing $((32 << 20)) -f -- "--relay=$SCRATCH/d/h2/" \
  --run "$PDX" -R exec -w 'h[1-4]' sync --relay "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 1
expect_contains "$err" "pdx: h2: " "the killed host"
expect_bridged "$err" h1
expect_lines "$err" 2 "the killed host and h1's warning"
expect_eq "$out" "pdx: h[1,3-4]: 1 file sent whole (96.0 MiB)" "the others complete"
for h in h1 h3 h4; do same_tree "$SCRATCH/src" "$SCRATCH/d/$h/src"; done
[[ ! -e $SCRATCH/d/h2/src/huge ]] || fail "h2: a huge under its final name"

# The head killed: pdx bridges around it, from here, to h2.
run_killing $((32 << 20)) -f -- "--relay=$SCRATCH/e/h1/" \
  --run "$PDX" -R exec -w 'h[1-4]' sync --relay "$SCRATCH/src" "$SCRATCH/e/%h/"
expect_status 1
expect_contains "$err" "pdx: h1: " "the killed head"
grep -Eqx "pdx: warning: h1: the relay's head is gone; from here, bridged around it to 127.0.0.1 port [0-9]+ from offset [0-9]+" <<< "$err" ||
  fail "pdx bridging around the head: [$err]"
expect_lines "$err" 2 "the killed head and pdx's warning"
expect_eq "$out" "pdx: h[2-4]: 1 file sent whole (96.0 MiB)" "the others complete"
for h in h2 h3 h4; do same_tree "$SCRATCH/src" "$SCRATCH/e/$h/src"; done
[[ ! -e $SCRATCH/e/h1/src/huge ]] || fail "h1: a huge under its final name"
true
