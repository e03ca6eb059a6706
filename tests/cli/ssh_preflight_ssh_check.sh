# pdx preflight tries ssh from the first host to every host (BatchMode: no password), as
# DeepSpeed's pdsh launcher does: the first host's account is given the cluster's key and an
# ssh_config where one host's port is wrong; that host is named.
source "$(dirname "$0")/../lib/preflight_common.sh"

first=$(home_of 41)
[[ -e $first/.ssh ]] && skip "$first/.ssh exists: not this test's to change"
at_exit "rm -rf '$first/.ssh'"
install -d -m 700 -o pdx041 -g pdx041 "$first/.ssh"
install -m 600 -o pdx041 -g pdx041 "$CLUSTER/id_ed25519" "$first/.ssh/id_ed25519"
install -m 600 -o pdx041 -g pdx041 "$CLUSTER/known_hosts" "$first/.ssh/known_hosts"
{
  printf 'Host 127.0.0.46\n  Port 1\n'
  sed -e "s#^  IdentityFile .*#  IdentityFile $first/.ssh/id_ed25519#" \
      -e "s#^  UserKnownHostsFile .*#  UserKnownHostsFile $first/.ssh/known_hosts#" "$CONFIG"
} > "$first/.ssh/config"
chown pdx041:pdx041 "$first/.ssh/config"
chmod 600 "$first/.ssh/config"

preflight
expect_status 1
expect_contains "$out" "ok   ssh from 127.0.0.41: 127.0.0.[41-45,47-48]"
expect_contains "$out" "FAIL ssh from 127.0.0.41: 127.0.0.46 ("
true
