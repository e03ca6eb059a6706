# sshd_cpu: the CPU seconds the loopback cluster's side has spent so far: its sshd processes and
# their reaped children (each session, and what it ran), and init's (orphans reparented there).
# Read from /proc/PID/stat, so other work on the machine does not count. Needs $CLUSTER.
# init's count: a connection's session process whose parent sshd exited first is reaped by
# init (PID 1), and that is 2-3 s at 512 hosts; so run where orphans go to PID 1 (not to a
# subreaper such as systemd --user) and nothing else orphans processes meanwhile.
sshd_cpu() {
  local pid total=0
  for pid in $(cat "$CLUSTER"/sshd.*.pid) 1; do
    total=$((total + $(awk '{ sub(/.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$pid/stat")))
  done
  echo "$total $(getconf CLK_TCK)" | awk '{ printf "%.2f", $1 / $2 }'
}

# Waits (up to 10 s) until the cluster's sshd sessions have ended: a host's CPU reaches sshd_cpu
# only once its session's process is reaped, a second or more after the client saw the end. The
# listener's children are not enough: OpenSSH 9.2's [priv] process may end before the session's
# own, which init then reaps with everything it ran (measured: 0.5 s counted at the listener's
# last child, 32 s five seconds later, for push --extract to 16 hosts). So, as root (an account
# per host), until no process of a host's account is left either.
sessions_ended() {
  local pid users
  users=$(awk '$1 == "User" && $2 != "'"$(id -un)"'" { print $2 }' "$CLUSTER/ssh_config" |
    sort -u | paste -sd,)
  for _ in $(seq 100); do
    for pid in $(cat "$CLUSTER"/sshd.*.pid); do pgrep -P "$pid" > /dev/null && break; done ||
      { [[ -n $users ]] && pgrep -u "$users" > /dev/null; } || return 0
    sleep 0.1
  done
}

# busy_cpu: CPU seconds the whole machine has been busy since boot, every core (/proc/stat: all
# but idle, iowait and the hypervisor's steal). Two readings around a run, over the cores, are its CPU floor: the wall time
# it would take with every core kept busy.
busy_cpu() {
  awk -v hz="$(getconf CLK_TCK)" 'NR == 1 { printf "%.2f", ($2 + $3 + $4 + $7 + $8) / hz }' \
    /proc/stat
}
