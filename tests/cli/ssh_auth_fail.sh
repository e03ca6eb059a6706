# A user the hosts do not know: authentication fails (255), says who and what was tried, and
# the other hosts are unaffected. A missing -i file is a usage error.
source "$(dirname "$0")/../lib/ssh_common.sh"

run_ssh -w "nosuchuser@$(host 1),$(host 2)" 'echo ran'
expect_status 255
expect_eq "$out" "$(host 2): ran"
expect_contains "$err" "pdx: nosuchuser@$(host 1): permission denied for user nosuchuser" "summary"

run_ssh -i "$SCRATCH/missing_key" -w "$(host 1)" 'echo ran'
expect_usage_error
expect_contains "$err" "cannot read identity $SCRATCH/missing_key" "missing identity"

# An encrypted key and no agent: a clear error saying to use ssh-agent.
ssh-keygen -q -t ed25519 -N 'secret' -f "$SCRATCH/locked"
sed "s#^  IdentityFile .*#  IdentityFile $SCRATCH/locked#" "$CONFIG" > "$SCRATCH/ssh_config"
unset SSH_AUTH_SOCK
run_pdx -F "$SCRATCH/ssh_config" -w "$(host 1)" 'echo ran'
expect_status 255
expect_contains "$err" "identity $SCRATCH/locked is encrypted: load it into ssh-agent" "encrypted key"
true
