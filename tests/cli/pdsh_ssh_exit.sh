# pdx as pdsh over ssh: "host: line" on stdout and stderr, exit status 0 without -S and the
# largest remote one with it, 255 and pdsh's two stderr lines for a host not reached, %h %u %n
# substituted over ssh too, labels cut at the first '.' but not in addresses. Compared with
# Debian's pdsh where it is installed.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/pdsh_common.sh"

node=$(hostname -s)
h1=$(host 1) h2=$(host 2)
export PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS_APPEND="-F $CONFIG" USER=$(id -un)  # %u: the local user
dead=127.0.0.251  # in the cluster's range, no sshd there

run_pdsh -w "$h2,$h1" 'echo %h %u %n %%; echo to-err >&2; exit %n'
expect_status 0
expect_eq "$(sort <<< "$out")" "$(printf '%s: %s %s 1 %%\n%s: %s %s 0 %%' "$h1" "$h1" "$USER" "$h2" "$h2" "$USER")"
expect_contains "$err" "$h1: to-err"
expect_contains "$err" "pdsh@$node: $h1: ssh exited with exit code 1"
if [[ -n $REAL_PDSH ]]; then
  mine_out=$out mine_err=$err
  run_real_pdsh -w "$h2,$h1" 'echo %h %u %n %%; echo to-err >&2; exit %n'
  expect_eq "$(sort <<< "$mine_out")" "$(sort <<< "$real_out")" "stdout vs pdsh"
  expect_eq "$(sort <<< "$mine_err")" "$(sort <<< "$real_err")" "stderr vs pdsh"
fi

run_pdsh -S -w "$h1,$h2" 'exit 3'
expect_status 3

run_pdsh -S -w "$h1,$dead" 'echo up'
expect_status 255
expect_eq "$out" "$h1: up"
expect_contains "$err" "$dead: pdx: " "the reason"
expect_contains "$err" "pdsh@$node: $dead: ssh exited with exit code 255"
run_pdsh -w "$dead" 'echo up'
expect_status 0

# A name with dots is cut at the first one in labels (the command still sees all of it).
printf 'Host node1.example.com\n  HostName %s\n' "$h1" > "$SCRATCH/ssh_config"
cat "$CONFIG" >> "$SCRATCH/ssh_config"
PDSH_SSH_ARGS_APPEND="-F $SCRATCH/ssh_config" run_pdsh -w node1.example.com 'echo %h'
expect_eq "$out" "node1: node1.example.com"

# -p from PDSH_SSH_ARGS_APPEND (DeepSpeed's " -p PORT"): the last -p wins, as in ssh.
PDSH_SSH_ARGS_APPEND="-F $CONFIG -p 1" run_pdsh -S -w "$h1" true
expect_status 255
PDSH_SSH_ARGS_APPEND="-F $CONFIG -p 1 -p $CLUSTER_PORT" run_pdsh -S -w "$h1" true
expect_status 0
true
