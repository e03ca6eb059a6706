# Keys in ssh-agent (SSH_AUTH_SOCK): listed once per run, each host signs through the agent.
# IdentitiesOnly keeps to the agent keys that match the identity files; an agent that is gone or
# holds no usable key leaves the identity files to do the work.
source "$(dirname "$0")/../lib/ssh_common.sh"
command -v ssh-agent >/dev/null && command -v ssh-add >/dev/null || fail "ssh-agent/ssh-add not installed"

# Our own agent on a socket in $SCRATCH; ended by its pid, before $SCRATCH is removed.
eval "$(ssh-agent -s -a "$SCRATCH/agent.sock")" >/dev/null || fail "cannot start ssh-agent"
trap 'kill "$SSH_AGENT_PID" 2>/dev/null; rm -rf "$SCRATCH"' EXIT
ssh-add -q "$CLUSTER/id_ed25519" 2>/dev/null || fail "ssh-add failed"

# A key the hosts do not accept stands in for the identity files.
ssh-keygen -q -t ed25519 -N '' -f "$SCRATCH/stranger"
with_identity() {  # with_identity IDENTITIES_ONLY -> a copy of the cluster's ssh_config
  sed -e "s#^  IdentityFile .*#  IdentityFile $SCRATCH/stranger#" \
      -e "s#^  IdentitiesOnly .*#  IdentitiesOnly $1#" "$CONFIG" > "$SCRATCH/ssh_config.$1"
  echo "$SCRATCH/ssh_config.$1"
}
no_only=$(with_identity no)
only=$(with_identity yes)
hosts="$(host 1),$(host 2),$(host 3),$(host 4)"

run_pdx -F "$no_only" -w "$hosts" 'echo ran'
expect_status 0
expect_lines "$out" 4 "every host authenticated through the agent"

# IdentitiesOnly: the agent's key is not one of the identity files, so it is not offered.
run_pdx -F "$only" -w "$(host 1)" 'echo ran'
expect_status 255
expect_contains "$err" "tried $SCRATCH/stranger)" "IdentitiesOnly: no agent key offered"

# With the cluster's key as the identity file too, the agent's copy of it is used.
run_pdx -F "$CONFIG" -w "$hosts" 'echo ran'
expect_status 0
expect_lines "$out" 4 "IdentitiesOnly with a matching agent key"

# The agent holds only a key the hosts refuse: the identity file still works.
ssh-add -q -D 2>/dev/null
ssh-add -q "$SCRATCH/stranger" 2>/dev/null || fail "ssh-add failed"
run_pdx -F "$CONFIG" -o IdentitiesOnly=no -w "$hosts" 'echo ran'
expect_status 0
expect_lines "$out" 4 "identity file after a refused agent key"

# An agent socket that is gone is not an error; without an agent the stranger key alone fails.
SSH_AUTH_SOCK=$SCRATCH/gone.sock run_pdx -F "$CONFIG" -w "$(host 1)" 'echo ran'
expect_status 0
unset SSH_AUTH_SOCK
run_pdx -F "$no_only" -w "$(host 1)" 'echo ran'
expect_status 255
expect_contains "$err" "tried $SCRATCH/stranger)" "no agent"
true
