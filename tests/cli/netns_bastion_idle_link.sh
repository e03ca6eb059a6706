# A connection to the jump host left with no host on it while the jump host still sends (here its
# keepalive requests, ClientAliveInterval 1) must neither spin on its readable socket nor keep
# the run from ending. A host down behind the jump host holds the first connection's channel
# open; the hosts queued behind it go through a second connection, which is then idle for
# seconds, its socket readable, until the host down times out and the run ends.
source "$(dirname "$0")/../lib/bastion_common.sh"
export BASTION_SSHD_OPTIONS="ClientAliveInterval 1"
bastion_start 8

SECONDS=0
/usr/bin/time -f "%U %S" -o "$SCRATCH/cpu" timeout 30 "$PDX" -F "$dir/ssh_config" -J bastion1 -t 6 \
  -w "198.18.204.1,^$dir/hosts1" true < /dev/null > "$SCRATCH/out" 2> "$SCRATCH/err"
status=$?
err=$(cat "$SCRATCH/err")
(( status != 124 )) || fail "the run never ended (killed after 30s); stderr: $err"
expect_status 255
(( SECONDS < 20 )) || fail "the run took ${SECONDS}s with -t 6"
expect_eq "$err" "pdx: bastion1: more than one connection to this jump host: a channel open was slow (a host down?) while others waited
pdx: 198.18.204.1: connect timed out after 6s" "a host down, a second connection for the others"
expect_eq "$(logins bastion1)" 2 "logins"
# Busy-waiting on the idle connection's socket for the seconds it waited would use them whole.
cpu=$(tail -1 "$SCRATCH/cpu" | awk '{print $1 + $2}')
awk -v c="$cpu" 'BEGIN { exit !(c < 0.5) }' || fail "pdx used ${cpu}s of CPU in a run that mostly waited"
true
