# `UserKnownHostsFile /dev/null` with `StrictHostKeyChecking no`, the idiom of cluster scripts,
# in ssh_config and as -o: /dev/null reads as empty (as OpenSSH reads it), every host's new key is
# "recorded" there without complaint, and the commands run; /dev/null stays what it was.
source "$(dirname "$0")/../lib/ssh_common.sh"

hosts="$(host 1),$(host 2)"
{
  printf 'Host *\n  UserKnownHostsFile /dev/null\n  StrictHostKeyChecking no\n'
  cat "$CONFIG"
} > "$SCRATCH/ssh_config"
run_pdx -F "$SCRATCH/ssh_config" -w "$hosts" echo ran
expect_status 0
expect_eq "$err" "" "stderr (ssh_config)"
expect_eq "$(sort <<< "$out")" "$(printf '%s: ran\n' "$(host 1)" "$(host 2)")" "output (ssh_config)"

run_ssh -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -w "$hosts" echo ran
expect_status 0
expect_eq "$err" "" "stderr (-o)"
expect_lines "$out" 2 "output (-o)"

# accept-new records into /dev/null too, as OpenSSH does; yes finds no key there: refused.
run_ssh -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=accept-new -w "$hosts" echo ran
expect_status 0
run_ssh -o UserKnownHostsFile=/dev/null -o GlobalKnownHostsFile=/dev/null \
  -o StrictHostKeyChecking=yes -w "$(host 1)" "touch $SCRATCH/ran"
expect_status 255
[[ -e "$SCRATCH/ran" ]] && fail "a command ran without its host key known"
[[ -c /dev/null && $(stat -c %s /dev/null) -eq 0 ]] || fail "/dev/null is no longer a device"
true
