# Host keys: a changed key is refused under every policy and names the known_hosts line; an
# unknown key is refused with how to accept it; accept-new records it; @revoked, wildcard,
# case-variant and other-type entries are honoured as ssh(1) honours them. Nothing ever runs on
# a host whose key was refused.
source "$(dirname "$0")/../lib/ssh_common.sh"

config=$(config_with_known_hosts)
marker="pdx-key-marker.$$"
target=$(host 3)
ran() { [[ -e "$(home_of "${1:-3}")/$marker" ]]; }
server_key=$(cut -d' ' -f1-2 "$CLUSTER/ssh_host_ed25519_key.pub")

# Unknown key.
run_pdx -F "$config" -w "$target" "touch $marker"
expect_status 255
expect_contains "$err" "pdx: $target: host key is not known" "summary"
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
  expect_contains "$err" "pdx: $target: HOST KEY CHANGED (now " "summary ($policy)"
  expect_contains "$err" "$SCRATCH/known_hosts:2" "file:line ($policy)"
  ran && fail "a command ran on a host with a changed key ($policy)"
done

# @revoked: refused under every policy, even when the same key is also listed; never recorded.
{ echo "@revoked [$target]:$CLUSTER_PORT $server_key"; echo "[$target]:$CLUSTER_PORT $server_key"; } > "$SCRATCH/known_hosts"
for policy in yes accept-new no; do
  run_pdx -F "$config" -o StrictHostKeyChecking=$policy -w "$target" "touch $marker"
  expect_status 255
  expect_contains "$err" "pdx: $target: REVOKED host key (" "revoked ($policy)"
  expect_contains "$err" "$SCRATCH/known_hosts:1" "revoked file:line ($policy)"
  ran && fail "a command ran on a host with a revoked key ($policy)"
done
echo "@revoked * $server_key" > "$SCRATCH/known_hosts"
run_pdx -F "$config" -o StrictHostKeyChecking=accept-new -w "$target" "touch $marker"
expect_status 255
ran && fail "a command ran on a host with a revoked key (accept-new, not listed)"
expect_eq "$(cat "$SCRATCH/known_hosts")" "@revoked * $server_key" "revoked key not recorded"

# A wildcard entry with another key is a changed key, not an unknown one.
echo "[${target%.*}.*]:$CLUSTER_PORT $(cut -d' ' -f1-2 "$SCRATCH/other.pub")" > "$SCRATCH/known_hosts"
run_pdx -F "$config" -o StrictHostKeyChecking=accept-new -w "$target" "touch $marker"
expect_status 255
expect_contains "$err" "pdx: $target: HOST KEY CHANGED (now " "wildcard"
expect_contains "$err" "$SCRATCH/known_hosts:1" "wildcard file:line"
ran && fail "a command ran on a host whose wildcard entry holds another key"
expect_lines "$(cat "$SCRATCH/known_hosts")" 1 "wildcard: nothing recorded"

# Host names are matched in lower case: LOCALHOST is [localhost] (host 1 is 127.0.0.1).
echo "[localhost]:$CLUSTER_PORT $(cut -d' ' -f1-2 "$SCRATCH/other.pub")" > "$SCRATCH/known_hosts"
run_pdx -F "$config" -o StrictHostKeyChecking=accept-new -w LOCALHOST "touch $marker"
expect_status 255
expect_contains "$err" "pdx: LOCALHOST: HOST KEY CHANGED (now " "case"
expect_contains "$err" "$SCRATCH/known_hosts:1: " "case: the line matched"
ran 1 && fail "a command ran on a case variant of a host with a changed key"
expect_lines "$(cat "$SCRATCH/known_hosts")" 1 "case: nothing recorded"

# Only the server's ECDSA key is known: pdx asks for it first, as ssh does. A server that then
# presents another type (forced here) is refused, whatever the policy, naming the known line.
echo "[$target]:$CLUSTER_PORT $(cut -d' ' -f1-2 "$CLUSTER/ssh_host_ecdsa_key.pub")" > "$SCRATCH/known_hosts"
run_pdx -F "$config" -w "$target" 'echo ecdsa-ok'
expect_status 0
expect_eq "$out" "$target: ecdsa-ok"
for policy in yes accept-new no; do
  run_pdx -F "$config" -o StrictHostKeyChecking=$policy -o HostKeyAlgorithms=ssh-ed25519 \
    -w "$target" "touch $marker"
  expect_status 255
  expect_contains "$err" "a key of type ecdsa-sha2-nistp256 is known at $SCRATCH/known_hosts:1" "type ($policy)"
  ran && fail "a command ran on a host presenting a key of another type ($policy)"
done
expect_lines "$(cat "$SCRATCH/known_hosts")" 1 "type: nothing recorded"

# UserKnownHostsFile none: accept-new has nowhere to record (never the global file); no warns.
: > "$SCRATCH/global"
nouser=(-F "$config" -o UserKnownHostsFile=none -o GlobalKnownHostsFile="$SCRATCH/global")
run_pdx "${nouser[@]}" -o StrictHostKeyChecking=accept-new -w "$target" "touch $marker"
expect_status 255
expect_contains "$err" "no UserKnownHostsFile" "none (accept-new)"
ran && fail "a command ran on an unknown host with nowhere to record its key"
run_pdx "${nouser[@]}" -o StrictHostKeyChecking=no -w "$target" 'echo unrecorded'
expect_status 0
expect_eq "$out" "$target: unrecorded"
expect_contains "$err" "pdx: warning: cannot record the host key of [$target]:$CLUSTER_PORT" "none (no)"
expect_eq "$(cat "$SCRATCH/global")" "" "global file untouched"

# The cluster's known_hosts has hashed entries for its first hosts: they verify.
run_ssh -w "$(host 1),$(host 2)" 'echo hashed-ok'
expect_status 0
expect_lines "$out" 2
true
