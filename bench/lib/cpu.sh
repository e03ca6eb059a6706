# sshd_cpu: the CPU seconds the loopback cluster's side has spent so far: its sshd processes and
# their reaped children (each session, and what it ran), and init's (orphans reparented there).
# Read from /proc/PID/stat, so other work on the machine does not count. Needs $CLUSTER.
sshd_cpu() {
  local pid total=0
  for pid in $(cat "$CLUSTER"/sshd.*.pid) 1; do
    total=$((total + $(awk '{ sub(/.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$pid/stat")))
  done
  echo "$total $(getconf CLK_TCK)" | awk '{ printf "%.2f", $1 / $2 }'
}
