#!/usr/bin/env bash
# pdx preflight against the same checks done with pdsh one by one, as people do before a launch,
# on 16 hosts of the loopback sshd cluster: every check but --net (and the first host's ssh to
# the others, which the cluster's accounts have no keys for), the versions read by
# /usr/bin/python3 (Debian's, with python3-torch):
#   pdx -w HOSTS preflight --python /usr/bin/python3 -E NCCL_SOCKET_IFNAME=lo --need-disk .:1G
#       --port P --no-ssh-check
#   vs one pdsh per question: os-release and uname; ldd --version; python3 -c 'import torch'
#   (version, CUDA); deepspeed and accelerate; nvidia-smi --query-gpu; the interface (ip, mtu);
#   date; /dev/shm and ulimits; df; the port (ss on the master, a listener there, each host's
#   python3 connecting), each piped through dshbak -c to compare by eye.
# The best wall time of BENCH_RUNS runs (default 3) each, with the load average at that run's
# start (the machine is shared), and the ratio. Not a test: nothing is asserted.
#
#   bench/bench-preflight.sh [-p PDX] [-c CLUSTER_DIR]
# Needs: pdsh (Debian package), root, a loopback cluster of at least 16 hosts (started in
# CLUSTER_DIR when there is none).
set -euo pipefail
source "$(dirname "$0")/lib/cluster_options.sh"
HOSTS=16
RUNS=${BENCH_RUNS:-3}
command -v pdsh > /dev/null || { echo "bench-preflight: pdsh is missing (apt-get install pdsh)" >&2; exit 1; }
[[ $EUID -eq 0 ]] || { echo "bench-preflight: run as root (an account per host)" >&2; exit 1; }
[[ -x $PDX ]] || { echo "bench-preflight: no pdx at $PDX (build first, or -p PDX)" >&2; exit 1; }
[[ -f $CLUSTER/cluster ]] || "$here/../scripts/loopback-cluster.sh" start "$CLUSTER" "$HOSTS"
hosts=$(head -n "$HOSTS" "$CLUSTER/hostfile" | paste -sd,)
master=$(head -n 1 "$CLUSTER/hostfile")
port=$((20000 + RANDOM % 9000))
export CLUSTER HOSTS hosts master port

pdsh_run() { PDSH_SSH_ARGS="-F $CLUSTER/ssh_config -x -a %h" pdsh -R ssh -f "$HOSTS" "$@"; }
pdsh_checks() {
  local py=/usr/bin/python3
  pdsh_run -w "$hosts" '. /etc/os-release; echo "$PRETTY_NAME"; uname -r' | dshbak -c
  pdsh_run -w "$hosts" 'ldd --version | head -n 1' | dshbak -c
  pdsh_run -w "$hosts" "$py -c 'import torch; print(torch.__version__, torch.version.cuda)'" | dshbak -c
  pdsh_run -w "$hosts" "$py -c 'import deepspeed; print(deepspeed.__version__)'; $py -c 'import accelerate; print(accelerate.__version__)'" | dshbak -c
  pdsh_run -w "$hosts" 'nvidia-smi --query-gpu=name,driver_version --format=csv,noheader' | dshbak -c
  pdsh_run -w "$hosts" 'ip -o addr show dev lo; cat /sys/class/net/lo/mtu' | dshbak -c
  pdsh_run -w "$hosts" 'date +%s.%N' | dshbak -c
  pdsh_run -w "$hosts" 'df -h /dev/shm | tail -n 1; ulimit -n; ulimit -l; df -h . | tail -n 1' | dshbak -c
  pdsh_run -w "$master" "ss -Htln 'sport = :$port'" | dshbak -c
  pdsh_run -w "$master" "timeout 10 $py -c 'import socket; s = socket.socket(); s.bind((\"\", $port)); s.listen(); [s.accept() for _ in range($HOSTS)]' > /dev/null 2>&1 &"
  pdsh_run -w "$hosts" "$py -c 'import socket, time
for _ in range(50):
    try: socket.create_connection((\"$master\", $port), 1); print(\"ok\"); break
    except OSError: time.sleep(0.1)'" | dshbak -c
}
export -f pdsh_run pdsh_checks

best() {  # best WHAT CMD...: the least wall time of RUNS runs, and the load at its start
  local what=$1 least= at= wall load
  shift
  for _ in $(seq "$RUNS"); do
    read -r load _ < /proc/loadavg
    port=$((20000 + RANDOM % 9000))
    start=$(date +%s.%N)
    "$@" > /dev/null 2>&1 || true
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    if [[ -z $least ]] || (( $(echo "$wall < $least" | bc) )); then least=$wall at=$load; fi
    sleep 1  # the listeners' ports go
  done
  printf '%-8s %6.2f s wall (load %s)\n' "$what" "$least" "$at"
  eval "wall_$what=$least"
}

best pdx bash -c '"$0" -F "$CLUSTER/ssh_config" -w "$hosts" preflight --python /usr/bin/python3 \
  -E NCCL_SOCKET_IFNAME=lo --need-disk .:1G --port "$port" --no-ssh-check' "$PDX"
best pdsh bash -c pdsh_checks
echo "pdx / pdsh wall: $(echo "scale=2; $wall_pdx / $wall_pdsh" | bc)"
