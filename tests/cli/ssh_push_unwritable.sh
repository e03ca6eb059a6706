# DEST not writable on some hosts: those fail with one line naming the hosts, the reason and
# the file; the others complete; exit 1. A host sending a malformed frame fails alone too.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (root)"
(( CLUSTER_SIZE >= 4 )) || skip "needs 4 hosts"
hosts=$(head -n 4 "$HOSTFILE" | paste -sd,)
clean_on_hosts 4 fake
printf 'data\n' > "$SCRATCH/f"
for i in 2 3; do
  home=$(home_of "$i")
  rm -rf "$home/locked"
  mkdir -p "$home/locked/in"
  chown root: "$home/locked/in"
  chmod 0555 "$home/locked/in"
  at_exit "rm -rf '$home/locked'"
done

run_ssh -w "$hosts" push "$SCRATCH/f" 'locked/in/'
expect_status 1
expect_lines "$out" 1 "complete hosts"
expect_contains "$out" ": 5 B in 1 file"
expect_lines "$err" 1 "failures"
expect_contains "$err" "Permission denied (locked/in/f)"
[[ $(cat "$(home_of 1)/locked/in/f") == data ]] || fail "host 1 not written"

# A fake agent: host 2's prints a malformed frame.
chmod 0755 "$SCRATCH"
cat > "$SCRATCH/agent" << EOF2
#!/bin/sh
[ "\$PDX_RANK" = 1 ] && { printf 'Z\\000\\000\\000\\000'; exit 0; }
exec "$PDX" "\$@"
EOF2
chmod 0755 "$SCRATCH/agent"
run_ssh -w "$hosts" push --agent "$SCRATCH/agent" "$SCRATCH/f" 'fake/'
expect_status 1
expect_eq "$err" "pdx: $(host 2): malformed reply from the agent: unexpected frame in a listing" "failure"
expect_contains "$out" ": 5 B in 1 file"
