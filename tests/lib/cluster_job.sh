# Shared by tests/lib/preflight_common.sh and torch_common.sh: what a distributed job on hosts of
# the loopback cluster needs, a free port for its master and a directory of the test's own in
# each host's home.
source "$(dirname "${BASH_SOURCE[0]}")/ssh_common.sh"

# free_port: a TCP port no socket uses (listening or not), below the kernel's range for outgoing
# connections.
free_port() {
  local port
  for _ in $(seq 100); do
    port=$((10000 + RANDOM % 20000))
    ss -Htan "sport = :$port" | grep -q . || { echo "$port"; return; }
  done
  fail "no free port found"
}

# job_dirs NAME N...: the directory NAME (relative, unique to the test) in the home of hosts N...,
# owned by the host's account when run as root; removed when the test ends.
job_dirs() {
  local name=$1 n
  shift
  for n in "$@"; do
    if [[ $EUID -eq 0 ]]; then
      install -d -o "$(printf 'pdx%03d' "$n")" -g "$(printf 'pdx%03d' "$n")" "$(home_of "$n")/$name"
    else
      mkdir -p "$(home_of "$n")/$name"
    fi || fail "cannot make $name on host $n"
  done
  at_exit "remove_job_dirs '$name' $*"
}

# remove_job_dirs NAME N...: job_dirs' directories gone.
remove_job_dirs() {
  local name=$1 n
  shift
  for n in "$@"; do rm -rf "$(home_of "$n")/${name:?}"; done
}
