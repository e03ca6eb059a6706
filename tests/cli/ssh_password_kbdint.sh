# --askpass with keyboard-interactive authentication only (PAM asks "Password:" without echo):
# the password answers it on every host, after one prompt; a wrong one fails every host (255),
# runs nothing and is shown nowhere.
#
# Needs root (an account with a password, an sshd that checks it through PAM); skipped otherwise.
source "$(dirname "$0")/../lib/ssh_common.sh"
[[ $EUID -eq 0 ]] || skip "needs root: a test account with a password"
command -v python3 > /dev/null || skip "no python3 (scripts/deps.sh installs it)"
[[ -f /etc/pam.d/sshd ]] || skip "no PAM configuration for sshd (/etc/pam.d/sshd)"

user=pdxkb$$
password='correct horse; battery `staple`'
wrong='correct horse; battery'
password_account "$user" "$password"
addresses=(127.0.0.216 127.0.0.217 127.0.0.218)
start_sshd kbdint "${addresses[@]}" << 'EOF'
PubkeyAuthentication no
PasswordAuthentication no
KbdInteractiveAuthentication yes
UsePAM yes
EOF
config=$SCRATCH/kbdint.ssh_config
hosts=$(IFS=,; echo "${addresses[*]}")
marker=$(getent passwd "$user" | cut -d: -f6)/pdx-kbdint-marker

run_askpass "$password" -F "$config" -l "$user" -w "$hosts" 'echo "ran as $(id -un)"'
expect_status 0
expect_eq "$(sort <<< "$out")" "$(printf '%s: ran as '"$user"'\n' "${addresses[@]}")" "output"
expect_eq "$tty" "pdx: password for all hosts: " "terminal (one prompt, no echo)"
expect_eq "$err" "" "stderr"

run_askpass "$wrong" -F "$config" -l "$user" -w "$hosts" "touch $marker"
expect_password_refused "$wrong" "$marker" \
  "pdx: 127.0.0.[216-218]: permission denied for user $user (server offers keyboard-interactive; tried $CLUSTER/id_ed25519, keyboard-interactive)"
true
