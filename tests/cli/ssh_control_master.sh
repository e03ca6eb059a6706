# Warm connections: with ControlMaster auto and ControlPersist, the first run leaves a holder
# (pdx, detached) answering on each host's ControlPath; later runs (pdx, push, the pdsh name)
# go through it with no new login and the same output and exit status as a cold run (pull
# too); a held session that dropped is logged in again; Ctrl-C
# through it kills the remote command; -O check|exit; a holder killed -9 leaves stale sockets
# that are removed; a host no holder has is handed to one; an unsafe socket directory is refused once and the run connects directly;
# another user is refused by the holder; ControlPersist's time ends it; ssh's own master on the
# same ControlPath and pdx's holder (PATH.pdx) both keep answering, each to its own.
source "$(dirname "$0")/../lib/ssh_common.sh"

[[ $EUID -eq 0 ]] || skip "needs root (its own sshd, and another uid to try the holder as)"
user=pdx001
start_sshd warm 127.0.0.231 127.0.0.232 127.0.0.233 << EOF
LogLevel INFO
EOF
hosts='127.0.0.[231-233]'
mkdir -m 700 "$SCRATCH/cm"
control=(-o ControlMaster=auto -o ControlPersist=60 -o "ControlPath=$SCRATCH/cm/%r@%h:%p")
cold=(-F "$SCRATCH/warm.ssh_config" -l "$user")
warm=("${cold[@]}" "${control[@]}")

logins() { grep -c "Accepted publickey for $user" "$SCRATCH/warm.log"; }
at_exit end_holders

# Cold, then warm twice: the same output and status; the second warm run logs in nowhere.
script='cat; echo "to stderr" >&2; echo "on $(id -un)"; exit 3'
printf 'line one\nline two\n' > "$SCRATCH/in"
"$PDX" "${cold[@]}" -w "$hosts" "$script" < "$SCRATCH/in" > "$SCRATCH/cold.out" 2> "$SCRATCH/cold.err"
cold_status=$?
expect_eq "$(holders)" "" "holders after a cold run"
for round in first second; do
  before=$(logins)
  "$PDX" "${warm[@]}" -w "$hosts" "$script" < "$SCRATCH/in" > "$SCRATCH/warm.out" 2> "$SCRATCH/warm.err"
  status=$?
  expect_eq "$status" "$cold_status" "$round warm run's exit status"
  expect_eq "$(sort "$SCRATCH/warm.out")" "$(sort "$SCRATCH/cold.out")" "$round warm run's output"
  expect_eq "$(sort "$SCRATCH/warm.err")" "$(sort "$SCRATCH/cold.err")" "$round warm run's stderr"
  [[ $(holders | wc -l) -eq 1 ]] || fail "$round warm run: not one holder: $(holders)"
  [[ -S $SCRATCH/cm/$user@127.0.0.231:$(grep -m1 Port "$SCRATCH/warm.ssh_config" | awk '{print $2}').pdx ]] ||
    fail "no control socket for 127.0.0.231: $(ls "$SCRATCH/cm")"
done
expect_eq "$(logins)" "$before" "logins made by the second warm run"
holder=$(holders)

# push and the pdsh name go through the holder too.
before=$(logins)
head -c 300000 /dev/urandom > "$SCRATCH/payload"
dest=/tmp/$TEST_NAME.$$
at_exit "rm -rf $dest"
run_pdx "${warm[@]}" -w 127.0.0.231 push "$SCRATCH/payload" "$dest/"
expect_status 0
cmp -s "$SCRATCH/payload" "$dest/payload" || fail "push: $dest/payload differs: $err"
run_pdx "${warm[@]}" -w 127.0.0.231 pull "$dest/payload" "$SCRATCH/pulled"
expect_status 0
pulled=$(find "$SCRATCH/pulled" -type f -name payload)
[[ -n $pulled ]] && cmp -s "$SCRATCH/payload" "$pulled" || fail "pull through the holder: $err"
mkdir -p "$SCRATCH/bin"
ln -s "$PDX" "$SCRATCH/bin/pdsh"
out=$(PDSH_SSH_ARGS_APPEND="${warm[*]}" "$SCRATCH/bin/pdsh" -w "$hosts" 'echo pdsh' < /dev/null | sort)
expect_eq "$out" "$(printf '127.0.0.%s: pdsh\n' 231 232 233)" "pdsh through the holder"
expect_eq "$(logins)" "$before" "logins made by push, pull and pdsh through the holder"
expect_eq "$(holders)" "$holder" "the holder after push and pdsh"

# -O check
run_pdx "${warm[@]}" -O check -w "$hosts"
expect_status 0
expect_eq "$(grep -c "Master running (pid=$holder)" <<< "$err")" 3 "-O check"
run_pdx "${warm[@]}" -O check -w "$hosts" hostname
expect_usage_error
run_pdx "${warm[@]}" -O exit -w "$hosts" push "$SCRATCH/payload" /tmp/nowhere
expect_usage_error

# A held session that dropped (its sshd killed) is replaced by a new login; the others stay.
sessions=$(pgrep -P "$(cat "$SCRATCH/warm.pid")")
[[ $(wc -l <<< "$sessions") -eq 3 ]] || fail "not 3 held sessions: $sessions"
first=$(head -n 1 <<< "$sessions")
kill -KILL "$first" $(pgrep -P "$first")  # the connection's sshd, privileged and not
sleep 0.5
before=$(logins)
run_pdx "${warm[@]}" -w "$hosts" 'echo again'
expect_status 0
expect_eq "$(sort <<< "$out")" "$(printf '127.0.0.%s: again\n' 231 232 233)" "output after a session dropped"
expect_eq "$(( $(logins) - before ))" 1 "logins after one held session dropped"
expect_eq "$(holders)" "$holder" "the holder after a session dropped"

# Ctrl-C through the holder kills the command on the host.
"$PDX" "${warm[@]}" -w 127.0.0.231 "sleep 345.$$" < /dev/null > /dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do pgrep -u "$user" -f "sleep 345.$$" > /dev/null && break; sleep 0.1; done
pgrep -u "$user" -f "sleep 345.$$" > /dev/null || fail "the remote sleep never started"
kill -INT "$pid"
wait "$pid"
expect_eq "$?" 130 "exit status after Ctrl-C"
for _ in $(seq 50); do pgrep -u "$user" -f "sleep 345.$$" > /dev/null || break; sleep 0.1; done
pgrep -u "$user" -f "sleep 345.$$" > /dev/null && fail "Ctrl-C through the holder left the remote command running"

# Another user may not use the holder: it hangs up before answering.
inodes=$(find "/proc/$holder/fd" -lname 'socket:*' -printf '%l\n' | tr -dc '0-9\n' | paste -sd'|')
name=$(awk -v re="^($inodes)\$" '$7 ~ re && $8 ~ /^@pdx-holder-/ { print $8; exit }' /proc/net/unix)
[[ -n $name ]] || fail "the holder's own socket is not listed"
answer=$(setpriv --reuid="$user" --regid="$user" --clear-groups /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("\0" + sys.argv[1][1:])
s.settimeout(5)
try:
    s.sendall(b"\0\0\0\x01\x06")  # check
    print(len(s.recv(100)))
except (ConnectionResetError, BrokenPipeError):  # hung up on
    print(0)' "$name" 2>&1)
expect_eq "$answer" 0 "bytes the holder sent another user"
expect_eq "$(holders)" "$holder" "the holder after another user tried it"

# A holder killed -9: its sockets are stale, removed, and the run works (with a new holder).
kill -9 "$holder"
for _ in $(seq 50); do [[ -z $(holders) ]] && break; sleep 0.1; done
run_pdx "${warm[@]}" -w "$hosts" 'echo after'
expect_status 0
expect_eq "$(sort <<< "$out")" "$(printf '127.0.0.%s: after\n' 231 232 233)" "output after a stale socket"
expect_eq "$err" "" "stderr after a stale socket"
[[ $(holders | wc -l) -eq 1 && $(holders) != "$holder" ]] || fail "no new holder: $(holders)"

# -O exit: the holder ends and removes its sockets.
run_pdx "${warm[@]}" -O exit -w "$hosts"
expect_status 0
expect_eq "$(grep -c ': Exit request sent\.$' <<< "$err")" 3 "-O exit"
for _ in $(seq 50); do [[ -z $(holders) ]] && break; sleep 0.1; done
expect_eq "$(holders)" "" "holders after -O exit"
expect_eq "$(ls "$SCRATCH/cm")" "" "sockets left after -O exit"
run_pdx "${warm[@]}" -O check -w 127.0.0.231
expect_status 255

# An unsafe directory: one warning, then every host connected directly (and no holder).
for unsafe in mode symlink; do
  if [[ $unsafe == mode ]]; then
    chmod 755 "$SCRATCH/cm"
    path=$SCRATCH/cm
  else
    chmod 700 "$SCRATCH/cm"
    ln -s "$SCRATCH/cm" "$SCRATCH/link"
    path=$SCRATCH/link
  fi
  before=$(logins)
  run_pdx "${cold[@]}" -o ControlMaster=auto -o ControlPersist=60 -o "ControlPath=$path/%r@%h:%p" \
    -w "$hosts" 'echo direct'
  expect_status 0
  expect_eq "$(sort <<< "$out")" "$(printf '127.0.0.%s: direct\n' 231 232 233)" "$unsafe: output"
  expect_lines "$err" 1 "$unsafe: warnings"
  expect_contains "$err" "pdx: warning: ControlPath directory $path"
  expect_contains "$err" "connecting directly"
  expect_eq "$(( $(logins) - before ))" 3 "$unsafe: logins"
  expect_eq "$(holders)" "" "$unsafe: holders"
done

# ControlPersist's time after the last run ends the holder.
run_pdx "${cold[@]}" -o ControlMaster=auto -o ControlPersist=2 -o "ControlPath=$SCRATCH/cm/%C" \
  -w "$hosts" true
expect_status 0
[[ -n $(holders) ]] || fail "no holder with ControlPersist=2"
sleep 4
expect_eq "$(holders)" "" "holders 4s after ControlPersist=2 ran out"
expect_eq "$(ls "$SCRATCH/cm")" "" "sockets left after ControlPersist ran out"

# A host no holder has is logged in to once, by a holder: the run after that logs in nowhere.
run_pdx "${warm[@]}" -w '127.0.0.[231-232]' true
expect_status 0
for expected_logins in 1 0; do
  before=$(logins)
  run_pdx "${warm[@]}" -w "$hosts" 'echo mixed'
  expect_status 0
  expect_eq "$(sort <<< "$out")" "$(printf '127.0.0.%s: mixed\n' 231 232 233)" "output, mixed hosts"
  expect_eq "$(( $(logins) - before ))" "$expected_logins" "logins, mixed hosts"
done

# ssh's master on a host's ControlPath (the same ssh_config for both): pdx neither talks to it
# nor disturbs it, and ssh still finds its own master, not pdx's holder.
ssh_control=(-F "$SCRATCH/warm.ssh_config" -l "$user" "${control[@]}")
ssh "${ssh_control[@]}" 127.0.0.233 true < /dev/null || fail "ssh could not start its master"
at_exit "ssh ${ssh_control[*]@Q} -O exit 127.0.0.233 2> /dev/null"
before=$(logins)
run_pdx "${warm[@]}" -w "$hosts" 'echo beside'
expect_status 0
expect_eq "$(( $(logins) - before ))" 0 "logins with ssh's master beside the holder"
ssh "${ssh_control[@]}" -O check 127.0.0.233 2>&1 | grep -q "Master running" ||
  fail "ssh's master no longer answers on its ControlPath"
expect_eq "$(ssh "${ssh_control[@]}" 127.0.0.233 'echo through ssh' 2>&1 < /dev/null)" "through ssh" \
  "ssh through its master, with pdx's holder beside it"
exit 0
