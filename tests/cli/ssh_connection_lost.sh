# The sshd serving a host's connection dies while its command runs: that host fails on one line
# that says the connection was lost and why (not libssh2's "transport read"), exit 255; the
# other host's command completes.
source "$(dirname "$0")/../lib/ssh_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (root)"
(( CLUSTER_SIZE >= 2 )) || skip "needs 2 hosts"
marker="lost.$$"
"$PDX" -F "$CONFIG" -w "$(host 1),$(host 2)" "echo started; sleep 3; echo $marker" \
  < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr" &
pid=$!
at_exit "kill -KILL $pid 2> /dev/null"
user=$(stat -c %U "$(home_of 2)")
for _ in $(seq 100); do
  pgrep -u "$user" -f "sleep 3; echo $marker" > /dev/null && break
  sleep 0.05
done
kill_sshd_of "$user" "sleep 3; echo $marker"
wait "$pid"
status=$?
out=$(cat "$SCRATCH/stdout")
err=$(cat "$SCRATCH/stderr")
expect_status 255
expect_contains "$out" "$(host 1): $marker"
expect_eq "$err" "pdx: $(host 2): reading output: connection lost (closed by the host)" "failure"
