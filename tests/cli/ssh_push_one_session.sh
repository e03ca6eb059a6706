# pdx push runs all of a host's commands on one ssh connection: the agent (a wrapper logging
# sshd's $SSH_CONNECTION, whose client port names the connection) lists and receives with the
# same client port on every host, in one call: the agent that listed takes the stream, over ssh
# (a stream this small by default, and --data-via ssh) or over a direct link (--data-via direct:
# its --relay mode with pdx as its upstream); with more hosts than -f, in waves, each host still
# once; with --relay, the agents that listed take their parts of the chain. With -u (each
# command's time limited) the listing and the receive are two calls.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 5 ? CLUSTER_SIZE : 5 ))
(( n >= 2 )) || skip "needs 2 hosts"
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
clean_on_hosts "$n" one-session
logging_agent
printf 'data\n' > "$SCRATCH/f"

# check_calls [CALLS]: the calls on each host (--list; or CALLS), all from one client port.
check_calls() {
  local i address calls ports want=${1:---list} count
  count=$(wc -w <<< "$want")
  for i in $(seq "$n"); do
    address=$(host "$i")
    # SSH_CONNECTION: client address, client port, server address, server port
    calls=$(awk -v a="$address" '$3 == a' "$SCRATCH/log/calls")
    expect_lines "$calls" "$count" "calls on $address"
    [[ $(awk '{ print $5 }' <<< "$calls" | cut -d= -f1 | paste -sd' ') == "$want" ]] ||
      fail "$address: calls $calls"
    ports=$(awk '{ print $2 }' <<< "$calls" | sort -u)
    expect_lines "$ports" 1 "client ports of $address ($calls)"
  done
}

run_ssh -w "$hosts" push --agent "$SCRATCH/agent" "$SCRATCH/f" one-session/
expect_status 0
expect_lines "$out" 1 "report"
expect_contains "$out" ": 5 B in 1 file" "report"
check_calls "--list"  # a stream this small goes over ssh, to the agent that listed

: > "$SCRATCH/log/calls"
clean_on_hosts "$n" one-session
run_ssh -w "$hosts" -f 2 push --data-via direct --agent "$SCRATCH/agent" "$SCRATCH/f" one-session/
expect_status 0
expect_contains "$out" ": 5 B in 1 file" "report in waves"
check_calls  # the agent that listed takes the direct link
for i in $(seq "$n"); do
  [[ $(cat "$(home_of "$i")/one-session/f") == data ]] || fail "host $i: not written"
done

: > "$SCRATCH/log/calls"
clean_on_hosts "$n" one-session
run_ssh -w "$hosts" push --data-via ssh --agent "$SCRATCH/agent" "$SCRATCH/f" one-session/
expect_status 0
expect_contains "$out" ": 5 B in 1 file" "report over ssh"
check_calls "--list"

: > "$SCRATCH/log/calls"
clean_on_hosts "$n" one-session
run_ssh -w "$hosts" push --relay --agent "$SCRATCH/agent" "$SCRATCH/f" one-session/
expect_status 0
expect_eq "$err" "" "the chain linked up"
expect_contains "$out" ": 5 B in 1 file" "report of the relay"
check_calls "--list"  # each agent that listed takes its part of the chain

: > "$SCRATCH/log/calls"
clean_on_hosts "$n" one-session
run_ssh -w "$hosts" -u 60 push --data-via direct --agent "$SCRATCH/agent" "$SCRATCH/f" one-session/
expect_status 0
expect_contains "$out" ": 5 B in 1 file" "report with -u"
check_calls "--list --relay"
