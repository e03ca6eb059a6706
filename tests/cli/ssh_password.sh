# --askpass with `password` authentication: one prompt on the terminal, without echo, and the
# password logs in on every host; a host that refuses the key the client offers first still
# takes the password. A wrong password fails every host with one line each (255), runs nothing,
# and is shown nowhere. Without a terminal --askpass is a usage error.
#
# Needs root (an account with a password, an sshd that checks it); skipped otherwise.
source "$(dirname "$0")/../lib/ssh_common.sh"
[[ $EUID -eq 0 ]] || skip "needs root: a test account with a password"
command -v python3 > /dev/null || skip "no python3 (scripts/deps.sh installs it)"

user=pdxpw$$
password='tr0ub4dor & "3" $HOME'
wrong='tr0ub4dor & "3" $HOM'
password_account "$user" "$password"
addresses=(127.0.0.211 127.0.0.212 127.0.0.213)
# publickey is offered, but this account authorizes no key: the cluster's key fails first.
start_sshd password "${addresses[@]}" << 'EOF'
AuthorizedKeysFile none
PasswordAuthentication yes
KbdInteractiveAuthentication no
UsePAM no
EOF
config=$SCRATCH/password.ssh_config
hosts=$(IFS=,; echo "${addresses[*]}")
marker=$(getent passwd "$user" | cut -d: -f6)/pdx-password-marker

run_askpass "$password" -F "$config" -l "$user" -w "$hosts" 'echo "ran as $(id -un)"; exit 3'
expect_status 3
expect_eq "$(sort <<< "$out")" "$(printf '%s: ran as '"$user"'\n' "${addresses[@]}")" "output"
expect_eq "$(grep -c 'password for all hosts' <<< "$tty")" 1 "prompts"
expect_eq "$tty" "pdx: password for all hosts: " "terminal (no echo)"
expect_contains "$err" "pdx: 127.0.0.[211-213]: exit 3" "summary"

run_askpass "$wrong" -F "$config" -l "$user" -w "$hosts" "touch $marker"
expect_password_refused "$wrong" "$marker" \
  "pdx: 127.0.0.[211-213]: permission denied for user $user (server offers publickey,password; tried $CLUSTER/id_ed25519, password)"

# Each host on its own line when they fail differently: one refuses the password, one is down.
run_askpass "$wrong" -F "$config" -l "$user" -w "${addresses[0]},127.0.0.214" "touch $marker"
expect_status 255
expect_lines "$err" 2 "one line per failed host"
expect_contains "$err" "pdx: ${addresses[0]}: permission denied for user $user" "failure"
expect_contains "$err" "pdx: 127.0.0.214: " "the dead host"
[[ -e $marker ]] && fail "a command ran after a wrong password"

# No terminal to ask on: a usage error before any host is tried.
setsid -w "$PDX" --askpass -F "$config" -l "$user" -w "$hosts" "touch $marker" \
  < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
status=$? err=$(cat "$SCRATCH/stderr")
expect_usage_error
expect_contains "$err" "--askpass needs a terminal" "no terminal"
[[ -e $marker ]] && fail "a command ran without a password"
true
