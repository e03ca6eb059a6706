# Shared by tests/cli/ssh_*.sh: the loopback sshd cluster that ctest's ssh_cluster fixture
# started (scripts/loopback-cluster.sh), and how to run pdx against it.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CLUSTER=${PDX_CLUSTER:-$(dirname "${PDX_TEST_TMP:-/nonexistent}")/cluster}
[[ -f $CLUSTER/cluster ]] || fail "no loopback cluster in $CLUSTER (run: scripts/loopback-cluster.sh start $CLUSTER 64)"
read -r CLUSTER_SIZE CLUSTER_PORT < "$CLUSTER/cluster"
CONFIG=$CLUSTER/ssh_config
HOSTFILE=$CLUSTER/hostfile

# run_ssh ARGS...: pdx against the cluster (its ssh_config), stdin from /dev/null.
run_ssh() { run_pdx -F "$CONFIG" "$@"; }

# host N -> its address (as scripts/loopback-cluster.sh numbers them)
host() { sed -n "${1}p" "$HOSTFILE"; }

# The remote account's home on host N: its own as root (pdxNNN), else the one shared account.
home_of() {
  if [[ $EUID -eq 0 ]]; then getent passwd "$(printf 'pdx%03d' "$1")" | cut -d: -f6; else echo "$HOME"; fi
}

# A copy of the cluster's ssh_config whose known_hosts is $SCRATCH/known_hosts (for host key
# tests); prints its path.
config_with_known_hosts() {
  sed "s#^  UserKnownHostsFile .*#  UserKnownHostsFile $SCRATCH/known_hosts#" "$CONFIG" > "$SCRATCH/ssh_config"
  touch "$SCRATCH/known_hosts"
  echo "$SCRATCH/ssh_config"
}
