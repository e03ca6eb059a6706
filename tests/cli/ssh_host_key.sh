# Host keys: a changed key is refused under every policy and names the known_hosts line; an
# unknown key is refused with how to accept it; accept-new records it. Nothing ever runs on a
# host whose key was refused.
source "$(dirname "$0")/../lib/ssh_common.sh"

config=$(config_with_known_hosts)
marker="pdx-key-marker.$$"
target=$(host 3)
ran() { [[ -e "$(home_of 3)/$marker" ]]; }

# Unknown key.
run_pdx -F "$config" -w "$target" "touch $marker"
expect_status 255
expect_contains "$err" "host key for [$target]:$CLUSTER_PORT is not known" "summary"
expect_contains "$err" "StrictHostKeyChecking=accept-new" "how to accept"
ran && fail "a command ran on a host with an unknown key"

# accept-new records it, then the key matches.
run_pdx -F "$config" -o StrictHostKeyChecking=accept-new -w "$target" 'echo accepted'
expect_status 0
expect_eq "$out" "$target: accepted"
expect_contains "$(cat "$SCRATCH/known_hosts")" "[$target]:$CLUSTER_PORT ssh-ed25519 " "recorded key"
run_pdx -F "$config" -w "$target" 'echo known'
expect_status 0

# Changed key (a man in the middle): refused even with StrictHostKeyChecking=no.
ssh-keygen -q -t ed25519 -N '' -f "$SCRATCH/other"
{ echo "# a comment line"; echo "[$target]:$CLUSTER_PORT $(cut -d' ' -f1-2 "$SCRATCH/other.pub")"; } > "$SCRATCH/known_hosts"
for policy in yes accept-new no; do
  run_pdx -F "$config" -o StrictHostKeyChecking=$policy -w "$target" "touch $marker"
  expect_status 255
  expect_contains "$err" "HOST KEY CHANGED for [$target]:$CLUSTER_PORT" "summary ($policy)"
  expect_contains "$err" "$SCRATCH/known_hosts:2" "file:line ($policy)"
  ran && fail "a command ran on a host with a changed key ($policy)"
done

# The cluster's known_hosts has hashed entries for its first hosts: they verify.
run_ssh -w "$(host 1),$(host 2)" 'echo hashed-ok'
expect_status 0
expect_lines "$out" 2
true
