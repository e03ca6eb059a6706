# pdx sync --delete over ssh: after the transfer, each host's names under DEST that the sources
# lack are removed by its agent, children first, counted per host; --dry-run --delete lists
# them, folded, and removes nothing; only what is under the sources' names goes (DEST's other
# entries stay, as rsync), a symlink is removed itself and never followed out of DEST; a name
# that would escape DEST, sent to the agent by hand, is refused and nothing is removed.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
(( CLUSTER_SIZE >= 3 )) || skip "needs 3 hosts"
hosts=$(head -n 3 "$HOSTFILE" | paste -sd,)
h1=$(host 1) h2=$(host 2) h3=$(host 3)
clean_on_hosts 3 syncdel
make_tree "$SCRATCH/src"
mkdir -p "$SCRATCH/outside"
printf 'precious\n' > "$SCRATCH/outside/keep"
expect_line() { grep -Fxq -- "$2" <<< "$1" || fail "no line [$2] in: $1"; }

run_ssh -w "$hosts" sync "$SCRATCH/src" 'syncdel/%h/'
expect_status 0
dest() { echo "$(home_of "$1")/syncdel/$(host "$1")"; }
# Extras: on host 1 a file, a tree, a symlink out of DEST; on host 2 the same file; host 3 none.
# Beside the sources' tree, DEST/other is not the sync's: it stays.
for i in 1 2; do printf 'extra\n' > "$(dest "$i")/src/extra"; done
mkdir -p "$(dest 1)/src/old/deeper" "$(dest 1)/src/sub dir/gone"
printf 'x\n' > "$(dest 1)/src/old/deeper/x"
printf 'y\n' > "$(dest 1)/src/sub dir/gone/y"
ln -s "$SCRATCH/outside" "$(dest 1)/src/link"
printf 'not the sync'"'"'s\n' > "$(dest 1)/other"
for i in 1 2; do chown -R --reference="$(dest "$i")" "$(dest "$i")"; done  # the host's account's

run_ssh -w "$hosts" sync --dry-run --delete "$SCRATCH/src" 'syncdel/%h/'
expect_status 0
for name in "sub dir/gone/y" "sub dir/gone/" old/deeper/x old/deeper/ old/ link; do
  expect_line "$out" "pdx: $h1: would delete src/$name"
done
expect_line "$out" "pdx: $("$PDX" hosts --fold -w "$h1,$h2"): would delete src/extra"
expect_line "$out" "pdx: $h3: up to date"
expect_lines "$out" 8 "the dry run's lines"
[[ -e $(dest 1)/src/old/deeper/x && -e $(dest 2)/src/extra ]] || fail "--dry-run deleted"

run_ssh -w "$hosts" sync --delete "$SCRATCH/src" 'syncdel/%h/'
expect_status 0
expect_line "$out" "pdx: $h1: 7 deleted"
expect_line "$out" "pdx: $h2: 1 deleted"
expect_line "$out" "pdx: $h3: up to date"
for i in 1 2 3; do same_tree "$SCRATCH/src" "$(dest "$i")/src"; done
[[ -f $SCRATCH/outside/keep ]] || fail "a symlink's target was deleted"
[[ -f $(dest 1)/other ]] || fail "DEST's entry beside the sources was deleted"

run_ssh -w "$hosts" sync --delete "$SCRATCH/src" 'syncdel/%h/'
expect_status 0
expect_eq "$out" "pdx: $("$PDX" hosts --fold -w "$hosts"): up to date"

# By hand, as a hostile pdx would: an Entry frame naming ../victim, and one with an absolute
# name, to the deployed agent's --delete on host 1 (agent/agent_protocol.h: 'L', a u32
# length; the name as a u32 length and its bytes, kind 'f', mode, size, mtime, no hash, no
# symlink target, the mtime's nanoseconds).
u32() { local s; for s in 24 16 8 0; do printf "\\$(printf %03o $(( $1 >> s & 255 )))"; done; }
entry_frame() { printf L; u32 $(( ${#1} + 37 )); u32 ${#1}; printf '%s' "$1"; printf f; u32 420; printf '\000%.0s' $(seq 28); }
agent=\$HOME/.cache/pdx/$(sha256sum "$(deployed_agent)" | cut -d' ' -f1)/pdx
printf 'victim\n' > "$(home_of 1)/syncdel/victim"
for name in ../victim "$(home_of 1)/syncdel/victim"; do
  { entry_frame "$name"; printf 'Q\000\000\000\000'; } > "$SCRATCH/frames"
  "$PDX" -F "$CONFIG" -w "$h1" "$agent agent --delete=syncdel/$h1" < "$SCRATCH/frames" > "$SCRATCH/out" 2>&1
  status=$?
  expect_status 2  # the agent's usage-class error: bad input
  expect_contains "$(cat "$SCRATCH/out")" "unsafe name" "the agent's refusal of $name"
  [[ -f $(home_of 1)/syncdel/victim ]] || fail "$name: a name out of DEST was deleted"
done
