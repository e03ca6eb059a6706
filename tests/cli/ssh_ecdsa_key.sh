# ECDSA identity keys log in against a default OpenSSH server: nistp256, nistp384 and nistp521
# keys in OpenSSH's format, and one in PEM, each decoded once and signed by pdx for every host.
# The keys have no .pub files, so pdx takes the public key from the private key file.
# A key the server does not know is refused and nothing runs.
source "$(dirname "$0")/../lib/ssh_common.sh"

user=$([[ $EUID -eq 0 ]] && echo pdx001 || id -un)
home=$(getent passwd "$user" | cut -d: -f6)
marker=$home/pdx-ecdsa-marker.$$
at_exit "rm -f $marker"

for bits in 256 384 521; do
  ssh-keygen -q -t ecdsa -b $bits -N '' -f "$SCRATCH/id_ecdsa_$bits"
done
ssh-keygen -q -t ecdsa -b 256 -m PEM -N '' -f "$SCRATCH/id_ecdsa_pem"
cat "$SCRATCH"/*.pub > "$SCRATCH/authorized_keys"
rm "$SCRATCH"/*.pub
ssh-keygen -q -t ecdsa -b 256 -N '' -f "$SCRATCH/stranger"
chmod 755 "$SCRATCH"  # sshd reads authorized_keys as $user
chmod 644 "$SCRATCH/authorized_keys"

start_sshd ecdsa 127.0.0.224 127.0.0.225 127.0.0.226 << EOF
AuthorizedKeysFile $SCRATCH/authorized_keys
LogLevel VERBOSE
EOF
config=(-F "$SCRATCH/ecdsa.ssh_config" -l "$user" -o IdentitiesOnly=yes)
unset SSH_AUTH_SOCK

expected=$(printf '%s: ran as '"$user"'\n' 127.0.0.224 127.0.0.225 127.0.0.226)
for key in id_ecdsa_256 id_ecdsa_384 id_ecdsa_521 id_ecdsa_pem; do
  run_pdx "${config[@]}" -o IdentityFile="$SCRATCH/$key" -w '127.0.0.[224-226]' 'echo "ran as $(id -un)"'
  expect_status 0
  expect_eq "$(sort <<< "$out")" "$expected" "$key"
  expect_eq "$err" "" "$key: stderr"
done
[[ $(grep -c "Accepted publickey for $user .* ssh2: ECDSA " "$SCRATCH/ecdsa.log") -eq 12 ]] ||
  fail "expected 12 ECDSA logins, one per key and host: $(grep Accepted "$SCRATCH/ecdsa.log")"

run_pdx "${config[@]}" -o IdentityFile="$SCRATCH/stranger" -w 127.0.0.224 "touch $marker"
expect_status 255
[[ -e $marker ]] && fail "a command ran on a host that refused the key"
expect_eq "$err" "pdx: 127.0.0.224: permission denied for user $user (server offers publickey; tried $SCRATCH/stranger, $CLUSTER/id_ed25519)" "unknown key"
true
