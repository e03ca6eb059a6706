# ProxyJump (-J, ssh_config, -o, PDSH_SSH_ARGS_APPEND under the pdsh name): hosts this machine
# has no route to are reached through one jump host, or two, with ONE login to each jump host
# for all the hosts behind it; run and push (the agent's stream, --relay) work through it.
source "$(dirname "$0")/../lib/bastion_common.sh"
bastion_start 8

run_jump -w "^$dir/hosts1" -t 2 true
expect_status 255  # no route: the hosts cannot be reached directly
expect_contains "$err" "pdx: 198.18.202.[1-8]: connect to port 2222: No route to host" "direct"

run_jump -J bastion1 -w "^$dir/hosts1" 'echo $SSH_CONNECTION'
expect_status 0
expect_eq "$(sort <<< "$out" | awk '{print $1, $2, $4}')" \
  "$(for i in $(seq 8); do echo "198.18.202.$i: 198.18.202.$i 198.18.202.$i"; done)" \
  "one hop: every host reached, from its jump host's namespace"
expect_eq "$(logins bastion1)" 1 "bastion1 logins for 8 hosts"

# -J with user@host:port, and ssh_config's ProxyJump (its own entry for the jump host).
run_jump -J "pdx001@198.18.200.2:2222" -w "^$dir/hosts1" -b hostname
expect_status 0
expect_eq "$(logins bastion1)" 2 "bastion1 logins after a second run"
printf 'Include %s\nHost 198.18.203.*\n  ProxyJump bastion1,bastion2\n' "$dir/ssh_config" > "$SCRATCH/two_hops"
run_pdx -F "$SCRATCH/two_hops" -w "^$dir/hosts2" 'echo $SSH_CONNECTION'
expect_status 0
expect_eq "$(awk '{print $2}' <<< "$out" | sort -u)" "$(seq -f '198.18.203.%g' 8)" \
  "two hops: from the hosts' own namespace"
expect_eq "$(logins bastion1) $(logins bastion2)" "3 1" "one more login to each jump host"
run_jump -o ProxyJump=bastion1,bastion2 -w "^$dir/hosts2" true
expect_status 0
run_jump -o ProxyJump=none -J bastion1 -w "198.18.202.1" true
expect_status 0  # -J comes first, as in ssh

# push: the agent is deployed and streams through the jump host.
head -c 300000 /dev/urandom > "$SCRATCH/data"
dest=pdx-test-$TEST_NAME-$$
run_jump -J bastion1 -w "^$dir/hosts1" push "$SCRATCH/data" "$dest/"
expect_status 0
run_jump -J bastion1 -w "^$dir/hosts1" "sha256sum < $dest/data; rm -rf $dest"
expect_eq "$(awk '{print $2}' <<< "$out" | sort -u)" "$(sha256sum < "$SCRATCH/data" | awk '{print $1}')" "pushed copies"

# --relay: the agents link up with each other behind the jump host (no warning, no star).
run_jump -J bastion1 -w "^$dir/hosts1" push --relay "$SCRATCH/data" "$dest.relay/"
expect_status 0
expect_eq "$out$err" "pdx: 198.18.202.[1-8]: 293.0 KiB in 1 file" "relayed push through the jump host"
run_jump -J bastion1 -w "^$dir/hosts1" "sha256sum < $dest.relay/data; rm -rf $dest.relay"
expect_eq "$(awk '{print $2}' <<< "$out" | sort -u)" "$(sha256sum < "$SCRATCH/data" | awk '{print $1}')" "relayed copies"

# The pdsh name: -J in PDSH_SSH_ARGS_APPEND is honoured, not skipped (pdcp, rpdcp, sync, pull
# and verify through the jump host: netns_bastion_commands).
mkdir -p "$SCRATCH/bin" && ln -s "$PDX" "$SCRATCH/bin/pdsh"
before=$(logins bastion1)
out=$(PDSH_SSH_ARGS_APPEND="-F $dir/ssh_config -J bastion1" "$SCRATCH/bin/pdsh" -w "^$dir/hosts1" 'echo ok' 2>&1)
expect_eq "$(sort <<< "$out")" "$(seq -f '198.18.202.%g: ok' 8)" "pdsh through the jump host"
expect_eq "$(logins bastion1)" $((before + 1)) "pdsh: one bastion login"
true
