# A jump host's failures are named by the hop, once for all the hosts behind it: its host key
# unknown (refused, as any host's), nobody listening, and its connection lost mid-run.
source "$(dirname "$0")/../lib/bastion_common.sh"
bastion_start 4

grep -v "^\[198.18.200.2\]" "$dir/known_hosts" > "$SCRATCH/known_hosts"
run_jump -o UserKnownHostsFile="$SCRATCH/known_hosts" -J bastion1 -w "^$dir/hosts1" true
expect_status 0  # -o is the targets' (as in ssh): the jump host's own entry applies to it
sed "s#UserKnownHostsFile .*#UserKnownHostsFile $SCRATCH/known_hosts#" "$dir/ssh_config" > "$SCRATCH/config"
run_pdx -F "$SCRATCH/config" -J bastion1 -w "^$dir/hosts1" true
expect_status 255
expect_lines "$err" 1 "unknown jump host key"
expect_contains "$err" "pdx: 198.18.202.[1-4]: via bastion1: " "unknown jump host key"
expect_contains "$err" "via bastion1: host key is not known" "unknown jump host key"
expect_contains "$err" "StrictHostKeyChecking accept-new in the jump host's ssh_config entry" "advice"

run_jump -J pdx001@198.18.200.2:2 -w "^$dir/hosts1" true
expect_status 255
expect_eq "$err" "pdx: 198.18.202.[1-4]: via pdx001@198.18.200.2:2: connect to port 2: Connection refused" "nobody listening"

# A host behind the jump host that is down: its own failure, seen from the jump host.
run_jump -J bastion1 -w "198.18.202.1,198.18.202.9" true
expect_status 255
expect_contains "$err" "pdx: 198.18.202.9: via bastion1: cannot reach port 2222 from it" "a dead host behind it"

# A host down behind it (the jump host's connect waits minutes): the hosts queued behind its
# channel open go through another connection, said once; it fails for its own timeout.
before=$(logins bastion1)
SECONDS=0
run_jump -J bastion1 -t 4 -w "198.18.204.1,^$dir/hosts1" true
expect_status 255
(( SECONDS < 20 )) || fail "the run waited ${SECONDS}s for the jump host's connect to a host down"
expect_eq "$err" "pdx: bastion1: more than one connection to this jump host: a channel open was slow (a host down?) while others waited
pdx: 198.18.204.1: connect timed out after 4s" "a host down behind the jump host"
expect_eq "$(logins bastion1)" $((before + 2)) "logins with a host down"

# The jump host's connection lost mid-run: every host behind it fails, one line naming it.
"$PDX" -F "$dir/ssh_config" -J bastion1 -w "^$dir/hosts1" 'sleep 30' < /dev/null > "$SCRATCH/out" 2> "$SCRATCH/err" &
pdx=$!
for _ in $(seq 100); do
  [[ $(pgrep -c -P "$(cat "$dir/sshd.hosts1.pid")") -ge 4 ]] && break
  sleep 0.1
done
sleep 0.5  # the commands started
daemon=$(cat "$dir/sshd.bastion1.pid")
for pid in $(pgrep -P "$daemon"); do kill "$pid"; done  # its sessions: the link's sshd
wait $pdx
status=$?
err=$(cat "$SCRATCH/err")
expect_status 255
expect_lines "$err" 1 "the jump host lost"
expect_contains "$err" "pdx: 198.18.202.[1-4]: via bastion1: " "the jump host lost"
true
