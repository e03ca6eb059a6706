# pdx as pdsh over ssh, Ctrl-C as pdsh 2.34's: one SIGINT lists the hosts still running and the
# run goes on; DeepSpeed's launcher on Ctrl-C (SIGINT, then SIGTERM 0.1 s later) stops the run
# with nothing left running on the hosts; so does a second SIGINT within 1 s.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/pdsh_common.sh"

node=$(hostname -s)
h1=$(host 1) h2=$(host 2)
export PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS_APPEND=" -F $CONFIG -p $CLUSTER_PORT"
mark="$$.$RANDOM"  # in each command line, to find what is left on the hosts

start_job() {  # start_job SECONDS: sleep SECONDS on both hosts, waiting until both sleep
  "$PDSH" -w "$h1,$h2" "sleep $1; echo done; : $mark" < /dev/null > "$SCRATCH/out" 2> "$SCRATCH/err" &
  job=$!
  wait_for_processes "sleep $1; echo done; : $mark" 2
}
expect_nothing_left() {
  for _ in $(seq 30); do
    [[ -z $(pgrep -f ": $mark") ]] && return
    sleep 0.1
  done
  fail "$1: commands left running on the hosts: $(pgrep -af ": $mark")"
}

start_job 2
kill -INT "$job"
finish_job
expect_status 0
expect_eq "$(sort <<< "$out")" "$(printf '%s: done\n' "$h1" "$h2" | sort)" "one SIGINT: the run goes on"
expect_eq "$(sort <<< "$err")" "$(printf '%s\n' "pdsh@$node: interrupt (one more within 1 sec to abort)" \
  "pdsh@$node: $h1: command in progress" "pdsh@$node: $h2: command in progress" | sort)" "one SIGINT"

start_job 30  # DeepSpeed's launcher on Ctrl-C
kill -INT "$job"
sleep 0.1
kill -TERM "$job"
finish_job
expect_status 143
expect_eq "$out" "" "SIGINT then SIGTERM"
expect_nothing_left "SIGINT then SIGTERM"

start_job 30
kill -INT "$job"
sleep 0.2
kill -INT "$job"
finish_job
expect_status 1
expect_contains "$err" "pdsh@$node: interrupt, aborting." "two SIGINTs"
expect_nothing_left "two SIGINTs"
true
