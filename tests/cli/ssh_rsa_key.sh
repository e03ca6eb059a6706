# RSA identity keys log in to a default OpenSSH server (9.2 refuses ssh-rsa, SHA-1, by default):
# pdx signs with rsa-sha2-512, also with libssh2 1.10, which knows no rsa-sha2. Keys in
# OpenSSH's format and in PEM without a .pub file, and keys in ssh-agent; and on a server that
# accepts nothing but rsa-sha2-512. A key the server does not know is refused, nothing runs, and
# the error has no note about SHA-1 (that is not why); an RSA certificate, which still signs with
# SHA-1, is refused with that note.
source "$(dirname "$0")/../lib/ssh_common.sh"
command -v ssh-agent > /dev/null && command -v ssh-add > /dev/null || fail "ssh-agent/ssh-add not installed"

user=$([[ $EUID -eq 0 ]] && echo pdx001 || id -un)
home=$(getent passwd "$user" | cut -d: -f6)
marker=$home/pdx-rsa-marker.$$
ran() { [[ -e $marker ]]; }
at_exit "rm -f $marker"

# Two RSA keys, in OpenSSH's format and in PEM without a .pub file.
ssh-keygen -q -t rsa -b 2048 -N '' -f "$SCRATCH/id_rsa"
ssh-keygen -q -t rsa -b 3072 -m PEM -N '' -f "$SCRATCH/id_rsa_pem"
cat "$SCRATCH"/*.pub > "$SCRATCH/authorized_keys"
rm "$SCRATCH/id_rsa_pem.pub"
ssh-keygen -q -t rsa -b 2048 -N '' -f "$SCRATCH/stranger"
chmod 755 "$SCRATCH"  # sshd reads authorized_keys as $user
chmod 644 "$SCRATCH/authorized_keys"

start_sshd default 127.0.0.221 << EOF
AuthorizedKeysFile $SCRATCH/authorized_keys
LogLevel VERBOSE
EOF
default=(-F "$SCRATCH/default.ssh_config" -l "$user")
start_sshd sha512 127.0.0.222 127.0.0.223 << EOF
AuthorizedKeysFile $SCRATCH/authorized_keys
PubkeyAcceptedAlgorithms rsa-sha2-512
EOF
sha512=(-F "$SCRATCH/sha512.ssh_config" -l "$user")

unset SSH_AUTH_SOCK
for key in id_rsa id_rsa_pem; do
  run_pdx "${default[@]}" -i "$SCRATCH/$key" -w 127.0.0.221 'echo "ran as $(id -un)"'
  expect_status 0
  expect_eq "$out" "127.0.0.221: ran as $user" "$key, default server"
  expect_eq "$err" "" "$key, default server: stderr"
  run_pdx "${sha512[@]}" -i "$SCRATCH/$key" -w 127.0.0.222,127.0.0.223 'echo "ran as $(id -un)"'
  expect_status 0
  expect_eq "$(sort <<< "$out")" "$(printf '%s: ran as '"$user"'\n' 127.0.0.222 127.0.0.223)" "$key, rsa-sha2-512 only"
done
[[ $(grep -c "Accepted publickey for $user .* ssh2: RSA " "$SCRATCH/default.log") -eq 2 ]] ||
  fail "expected 2 RSA logins: $(grep -i publickey "$SCRATCH/default.log")"

# A key the server does not know: refused, nothing runs, no note about SHA-1.
run_pdx "${default[@]}" -o IdentityFile="$SCRATCH/stranger" -o IdentitiesOnly=yes -w 127.0.0.221 "touch $marker"
expect_status 255
ran && fail "a command ran on a host that refused the key"
expect_eq "$err" "pdx: 127.0.0.221: permission denied for user $user (server offers publickey; tried $SCRATCH/stranger, $CLUSTER/id_ed25519)" "unknown RSA key"

# The same through ssh-agent (an agent of our own, ended by its pid).
eval "$(ssh-agent -s -a "$SCRATCH/agent.sock")" > /dev/null || fail "cannot start ssh-agent"
at_exit 'kill "$SSH_AGENT_PID" 2> /dev/null'
ssh-add -q "$SCRATCH/id_rsa" 2> /dev/null || fail "ssh-add failed"
for target in "${default[*]} -w 127.0.0.221" "${sha512[*]} -w 127.0.0.222"; do
  read -ra args <<< "$target"
  run_pdx "${args[@]}" -o IdentitiesOnly=no -o IdentityFile="$SCRATCH/stranger" 'echo agent'
  expect_status 0
  expect_eq "$out" "${target##* }: agent" "agent RSA key ($target)"
done

# An RSA certificate still goes as ssh-rsa (its CA signature covers the type name), which this
# server refuses: with nothing else accepted, the error says so.
ssh-add -q -D 2> /dev/null
ssh-keygen -q -t ed25519 -N '' -f "$SCRATCH/ca"
ssh-keygen -q -s "$SCRATCH/ca" -I pdx-test -n "$user" "$SCRATCH/stranger.pub" || fail "cannot sign a certificate"
ssh-add -q "$SCRATCH/stranger" 2> /dev/null || fail "ssh-add failed"  # the key and its certificate
[[ $(ssh-add -L | grep -c .) -eq 2 ]] || fail "the agent should hold the key and its certificate: $(ssh-add -L)"
run_pdx "${default[@]}" -o IdentitiesOnly=no -o IdentityFile="$SCRATCH/stranger" -w 127.0.0.221 "touch $marker"
expect_status 255
ran && fail "a command ran on a host that refused the certificate"
hint="RSA keys: libssh2 [0-9.]+ signs only with ssh-rsa \(SHA-1\), which this server \(OpenSSH_[0-9.]+p?[0-9]*\) refuses by default; use an ed25519 or ecdsa key"
grep -Eq "^pdx: 127.0.0.221: permission denied for user $user \(server offers publickey; tried ssh-agent, .*\); $hint\$" <<< "$err" ||
  fail "RSA certificate, default server: [$err]"
grep -q "ssh-rsa-cert-v01@openssh.com not in PubkeyAcceptedAlgorithms" "$SCRATCH/default.log" ||
  fail "the server did not refuse the certificate's ssh-rsa signature: $(grep -i userauth "$SCRATCH/default.log")"
true
