# The sshd serving one host's connection killed in the middle of a push whose data goes over
# ssh (--data-via ssh): that host fails on one line, the others complete; it has no truncated
# file under a final name and no temporary one; a re-run completes it, sending only what it
# lacks (tests/lib/sshd_killed.sh). Its agent reads from its sshd: it cannot have it all.
source "$(dirname "$0")/../lib/sshd_killed.sh"
sshd_killed_push --receive --data-via ssh
(( kept < 4 )) || fail "the push to host 2 completed before its sshd was killed"
true
