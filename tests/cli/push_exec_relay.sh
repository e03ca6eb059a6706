# pdx push --relay: the files go host to host (each agent writes them and forwards them to the
# next over an authenticated TCP link), with the report a star push gives; a chain that cannot
# link up is sent from here instead, said once (an agent killed or stalled mid-chain:
# push_exec_relay_bridge.sh). Under -R exec every host is this machine, so the agents listen on
# 127.0.0.1.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
make_tree "$SCRATCH/src"

run_pdx -R exec -w 'h[1-4]' push --relay "$SCRATCH/src" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-4]: 3.0 MiB in 8 files" "summary"
expect_eq "$err" "" "nothing on stderr"
for h in h1 h2 h3 h4; do same_tree "$SCRATCH/src" "$SCRATCH/dest/$h/src"; done
no_leftovers "$SCRATCH/dest"

# Resume as without --relay: only what a host lacks, and hosts with other needs apart.
rm "$SCRATCH/dest/h2/src/plain" "$SCRATCH/dest/h3/src/plain"
run_pdx -R exec -w 'h[1-4]' push --relay "$SCRATCH/src" "$SCRATCH/dest/%h/"
expect_status 0
expect_contains "$out" "pdx: h[1,4]: up to date"
expect_contains "$out" "pdx: h[2-3]: 6 B in 1 file"
same_tree "$SCRATCH/src" "$SCRATCH/dest/h3/src"

# The one port the agents may use is held here: none can listen, so the chain cannot link up
# (a free port would let one agent listen, and another once the first had let it go); the push
# goes from here, and says so once.
rm -rf "$SCRATCH/dest"
hold_port
run_pdx -R exec -w 'h[1-3]' push --relay --relay-bind 127.0.0.1 --relay-ports "$held_port" \
  "$SCRATCH/src" "$SCRATCH/dest/%h/"
release_port
expect_status 0
expect_eq "$out" "pdx: h[1-3]: 3.0 MiB in 8 files" "sent from here"
expect_contains "$err" "pdx: warning: h[1-3]: the relay could not link up (h"
expect_contains "$err" "); sending from here"
expect_eq "$(grep -c warning <<< "$err")" 1 "said once"
for h in h1 h2 h3; do same_tree "$SCRATCH/src" "$SCRATCH/dest/$h/src"; done

# --extract through the relay.
mkdir -p "$SCRATCH/parts"
(cd "$SCRATCH/src" && tar -cf - .) | zstd -q -c | split -b 1M - "$SCRATCH/parts/data.tar.zst.part-"
run_pdx -R exec -w 'h[1-3]' push --relay --extract "$SCRATCH/parts"/data.tar.zst.part-* "$SCRATCH/x/%h"
expect_status 0
for h in h1 h2 h3; do same_tree "$SCRATCH/src" "$SCRATCH/x/$h"; done

# Bad input: a port range that is not one.
run_pdx -R exec -w h1 push --relay --relay-ports 9-1 "$SCRATCH/src" "$SCRATCH/y/"
expect_status 2
expect_eq "$err" "pdx: error: --relay-ports: the range ends before it starts"
run_pdx -R exec -w h1 push --relay --relay-ports http "$SCRATCH/src" "$SCRATCH/y/"
expect_status 2
expect_eq "$err" "pdx: error: --relay-ports: 'http' is not a port (1-65535)"
[[ ! -e $SCRATCH/y ]] || fail "a usage error wrote something"

true
