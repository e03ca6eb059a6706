# Shared by the tests on scripts/netns-cluster.sh: skipped (exit 0) where not root or without
# network namespaces; `netns_start N RATE` starts N hosts in $dir (stopped at exit), run with
# "$cluster" run "$dir" ...
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[[ $EUID -eq 0 ]] || { echo "SKIP [$TEST_NAME]: needs root"; exit 0; }
ip netns add "pdxprobe$$" 2> /dev/null || { echo "SKIP [$TEST_NAME]: no network namespaces here"; exit 0; }
ip netns del "pdxprobe$$"
cluster=$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-cluster.sh
dir=$SCRATCH/netns
chmod 0755 "$SCRATCH"  # sshd reads authorized_keys in it as each account
trap '"$cluster" stop "$dir"; rm -rf "$SCRATCH"' EXIT

netns_start() {
  "$cluster" start "$dir" "$1" "$2" > "$SCRATCH/start.log" 2>&1 || fail "start: $(cat "$SCRATCH/start.log")"
}
