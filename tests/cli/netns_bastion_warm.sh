# Warm connections behind a jump host: the holder reaches every host through one connection to
# the jump host; when that connection is lost, the sessions behind it go with it, and the next
# run logs in through the jump host again, once for all of them, instead of failing.
source "$(dirname "$0")/../lib/bastion_common.sh"
bastion_start 4
mkdir -m 700 "$SCRATCH/cm"
warm=(-J bastion1 -o ControlMaster=auto -o ControlPersist=60 -o "ControlPath=$SCRATCH/cm/%C")
trap 'end_holders; "$setup" stop "$dir"; rm -rf "$SCRATCH"' EXIT
all_up=$(for h in bastion1 $(cat "$dir/hosts1"); do echo "$h: up"; done | sort)

# The jump host as a host of its own (reached directly) and the hosts behind it, in one holder:
# two logins to the jump host; a warm run logs in nowhere.
run_jump "${warm[@]}" -w "bastion1,^$dir/hosts1" 'echo up'
expect_status 0
expect_eq "$(sort <<< "$out")" "$all_up" "the first run's output"
expect_eq "$(logins bastion1)" 2 "logins to the jump host"
holder=$(holders)
[[ $(wc -w <<< "$holder") -eq 1 ]] || fail "not one holder: $holder"
run_jump "${warm[@]}" -w "bastion1,^$dir/hosts1" 'echo up'
expect_status 0
expect_eq "$(logins bastion1)" 2 "logins to the jump host by a warm run"
# The jump host's side of the connection the hosts go through: its sshd holds their TCP
# connections.
ns=$(ip netns identify "$(cat "$dir/sshd.bastion1.pid")")
link=$(ip netns exec "$ns" ss -tnpH state established dst 198.18.202.0/24 dport = :2222 | grep -o 'pid=[0-9]*' |
  cut -d= -f2 | sort -u)
[[ $(wc -w <<< "$link") -eq 1 ]] || fail "not one sshd on the jump host carrying the hosts: $link"

# The connection to the jump host lost while the holder is idle: the next run logs in through
# it again, once, and every host answers; the holder is the same.
kill $link
sleep 0.1  # its loss seen by the holder, which has not yet swept its dead sessions (once a second)
run_jump "${warm[@]}" -w "bastion1,^$dir/hosts1" 'echo up'
expect_status 0
expect_eq "$(sort <<< "$out")" "$all_up" "output after the connection was lost"
expect_eq "$err" "" "stderr after the jump host's connection was lost"
expect_eq "$(logins bastion1)" 3 "logins to the jump host after its connection was lost"
expect_eq "$(holders)" "$holder" "the holder"
run_jump "${warm[@]}" -w "bastion1,^$dir/hosts1" 'echo up'
expect_status 0
expect_eq "$(logins bastion1)" 3 "logins to the jump host by the warm run after that"
true
