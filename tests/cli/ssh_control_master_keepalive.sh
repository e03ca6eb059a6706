# Keepalives on the holder's idle sessions (ServerAliveInterval, ServerAliveCountMax): a held
# session whose host stops answering (its sshd stopped) is dropped, and the next run logs in to
# that host again instead of hanging on it; a host that answers keeps its session. A bad value
# is a usage error.
source "$(dirname "$0")/../lib/ssh_common.sh"

[[ $EUID -eq 0 ]] || skip "needs root (its own sshd)"
user=pdx001
start_sshd alive 127.0.0.237 127.0.0.238 <<< "LogLevel INFO"
port=$(awk '$1 == "Port" { print $2; exit }' "$SCRATCH/alive.sshd_config")
mkdir -m 700 "$SCRATCH/cm"
warm=(-F "$SCRATCH/alive.ssh_config" -l "$user" -o ControlMaster=auto -o ControlPersist=60
  -o "ControlPath=$SCRATCH/cm/%r@%h:%p" -o ServerAliveInterval=1 -o ServerAliveCountMax=2)
hosts='127.0.0.[237-238]'

logins() { grep -c "Accepted publickey for $user" "$SCRATCH/alive.log"; }
stopped=
end_all() {
  if [[ -n $stopped ]]; then kill -CONT $stopped; kill $stopped; fi 2> /dev/null
  end_holders
}
at_exit end_all

run_pdx "${warm[@]}" -w "$hosts" true
expect_status 0
holder=$(holders)
[[ $(wc -w <<< "$holder") -eq 1 ]] || fail "not one holder: $holder"
before=$(logins)

# Idle for several intervals, both hosts answering: both sessions kept.
sleep 3
run_pdx "${warm[@]}" -w "$hosts" 'echo kept'
expect_status 0
expect_eq "$(( $(logins) - before ))" 0 "logins after idle intervals with the hosts answering"

# 127.0.0.237's sshd for the held session stopped: no keepalive answered, dropped after 2.
stopped=$(ss -tnpH state established src "127.0.0.237:$port" | grep -o 'pid=[0-9]*' | cut -d= -f2 |
  sort -u | paste -sd' ')
[[ $(wc -w <<< "$stopped") -ge 1 ]] || fail "no sshd holds 127.0.0.237's session"
kill -STOP $stopped
sleep 5
SECONDS=0
timeout 30 "$PDX" "${warm[@]}" -w "$hosts" 'echo again' < /dev/null > "$SCRATCH/out" 2> "$SCRATCH/err"
status=$?
err=$(cat "$SCRATCH/err")
(( status != 124 )) || fail "the run hung on the host that stopped answering (killed after 30s)"
expect_status 0
expect_eq "$(sort "$SCRATCH/out")" "$(printf '127.0.0.%s: again\n' 237 238)" "output"
expect_eq "$(( $(logins) - before ))" 1 "logins after one host stopped answering"
expect_eq "$(holders)" "$holder" "the holder after it dropped a session"

# A bad value is the user's mistake, said at once.
run_pdx "${warm[@]}" -o ServerAliveInterval=often -w "$hosts" true
expect_usage_error
expect_contains "$err" "ServerAliveInterval"
exit 0
