# Shared by tests/cli/netns_bastion_*.sh: hosts behind jump hosts (scripts/bastion-netns.sh),
# started with `bastion_start N` and stopped when the test ends; skipped (exit 77) where not
# root or without network namespaces. run_jump ARGS...: pdx with the setup's ssh_config.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[[ $EUID -eq 0 ]] || { echo "SKIP [$TEST_NAME]: needs root"; exit 77; }
ip netns add "pdxprobe$$" 2> /dev/null || { echo "SKIP [$TEST_NAME]: no network namespaces here"; exit 77; }
ip netns del "pdxprobe$$"
exec 9> /run/lock/pdx-bastion-netns  # one setup at a time: its addresses are fixed
flock 9
setup=$(dirname "${BASH_SOURCE[0]}")/../../scripts/bastion-netns.sh
dir=$SCRATCH/bastion
chmod 0755 "$SCRATCH"  # sshd reads authorized_keys in it as each account
trap '"$setup" stop "$dir"; rm -rf "$SCRATCH"' EXIT

bastion_start() {
  "$setup" start "$dir" "$1" > "$SCRATCH/start.log" 2>&1 || fail "start: $(cat "$SCRATCH/start.log")"
}

run_jump() { run_pdx -F "$dir/ssh_config" "$@"; }

# logins NAME: how many times bastion NAME's sshd let someone in.
logins() { grep -c "Accepted publickey" "$dir/$1.log"; }
