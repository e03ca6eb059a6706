# pdx push --agent PATH where PATH cannot run on a host: not executable (Permission denied),
# not a program (Exec format error), not there (not found). Each such host is pushed with its
# sh and tar; one warning per reason names its hosts; every host ends with the file.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
(( CLUSTER_SIZE >= 4 )) || skip "needs 4 hosts"
[[ $EUID -eq 0 ]] || skip "needs an account per host"
hosts=$(head -n 4 "$HOSTFILE" | paste -sd,)
unique=$(basename "$SCRATCH")
agent=.bad-agent-$unique dest=bad-agent-$unique
clean_on_hosts 4 "$dest"
clean_on_hosts 4 "$agent"
head -c 4096 /dev/urandom > "$(home_of 1)/$agent"  # not executable
# Random bytes after a NUL: without a NUL in its first line, sh runs such a file as a script.
{ printf '\0'; head -c 4096 /dev/urandom; } > "$(home_of 2)/$agent" && chmod 0755 "$(home_of 2)/$agent"
printf '\177ELF\2\1\1\0\0\0\0\0\0\0\0\0\2\0\267\0' > "$(home_of 3)/$agent"  # an aarch64 header
head -c 4096 /dev/urandom >> "$(home_of 3)/$agent" && chmod 0755 "$(home_of 3)/$agent"
cp "$PDX" "$(home_of 4)/$agent"  # the real one
chown "$(printf 'pdx%03d' 4):" "$(home_of 4)/$agent"
printf 'data\n' > "$SCRATCH/f"

run_ssh -w "$hosts" push --agent "./$agent" "$SCRATCH/f" "$dest/"
expect_status 0
expect_eq "$out" "pdx: $("$PDX" hosts --fold -w "$hosts"): 5 B in 1 file" "summary"
tail="; pushing with the host's sh and tar (slower)"
expect_contains "$err" "pdx: warning: $(host 1): the agent cannot run there (sh: 1: exec: ./$agent: Permission denied)$tail"
expect_contains "$err" "pdx: warning: $("$PDX" hosts --fold -w "$(host 2),$(host 3)"): the agent cannot run there (sh: 1: exec: ./$agent: Exec format error)$tail"
expect_lines "$err" 2 "warnings"
for i in 1 2 3 4; do cmp -s "$SCRATCH/f" "$(home_of "$i")/$dest/f" || fail "host $i: no file"; done

# Not there at all (127), on every host.
run_ssh -w "$hosts" push --agent "./$agent.missing" "$SCRATCH/f" "$dest/again/"
expect_status 0
expect_eq "$err" "pdx: warning: $("$PDX" hosts --fold -w "$hosts"): the agent cannot run there (sh: 1: exec: ./$agent.missing: not found)$tail" "warning"
