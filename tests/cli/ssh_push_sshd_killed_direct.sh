# The sshd serving one host's connection killed in the middle of a push whose data goes over a
# direct link (the default): the agent goes on reading its link, so the files may all land, but
# with its control session gone the host cannot confirm them and fails on one line, the others
# complete; it has no truncated file under a final name and no temporary one; a re-run completes
# it, sending only what it lacks, nothing when all landed (tests/lib/sshd_killed.sh).
source "$(dirname "$0")/../lib/sshd_killed.sh"
sshd_killed_push --relay
true
