# DeepSpeed's stop sequence: SIGINT to pdx, then SIGTERM 0.1 s later, while 4 hosts run a long
# command. The second signal does not cut short the kill of the remote commands (it only bounds
# it): every time, pdx exits within a few seconds and no host's command is left running.
# Every other try sends SIGTERM right after SIGINT: it then surely comes while the hosts are
# being told to kill (on loopback that takes less than 0.1 s).
source "$(dirname "$0")/../lib/ssh_common.sh"
(( CLUSTER_SIZE >= 4 )) || skip "needs 4 hosts"

hosts=$(head -n 4 "$HOSTFILE" | paste -sd,)
for try in 1 2 3 4 5 6; do
  nap="1000.$$$try"  # a sleep only this try starts: the hosts are this machine, so pgrep sees them
  "$PDX" -F "$CONFIG" -w "$hosts" "echo up; sleep $nap" < /dev/null > "$SCRATCH/out" 2> "$SCRATCH/err" &
  pid=$!
  at_exit "kill -KILL $pid 2> /dev/null; pkill -f 'sleep $nap'"
  for _ in $(seq 100); do (( $(grep -c up "$SCRATCH/out") == 4 )) && break; sleep 0.1; done
  (( $(grep -c up "$SCRATCH/out") == 4 )) || fail "try $try: the commands did not start: $(cat "$SCRATCH/err")"
  start_ms=$(( $(date +%s%N) / 1000000 ))
  kill -INT "$pid"
  (( try % 2 )) || sleep 0.1
  kill -TERM "$pid" 2> /dev/null
  wait "$pid"
  status=$?
  elapsed_ms=$(( $(date +%s%N) / 1000000 - start_ms ))
  err=$(cat "$SCRATCH/err")
  # 130, or 143 when the SIGTERM came once the kill was done and the run over (pdx then ends by
  # it, as any program would): what matters is that no command is left running.
  (( status == 143 )) || expect_status 130
  (( elapsed_ms < 5000 )) || fail "try $try: pdx took ${elapsed_ms} ms to stop"
  left=$(pgrep -fa "sleep $nap")
  [[ -z $left ]] || fail "try $try: remote commands outlived SIGINT then SIGTERM: $left"
done
true
