# Where user and port come from, as in ssh: user@host and host:port win over -l and -p, which
# win over ssh_config (-o first of all); -F replaces the config files.
source "$(dirname "$0")/../lib/ssh_common.sh"

h=$(host 1)
me=$([[ $EUID -eq 0 ]] && echo pdx001 || id -un)

run_ssh -p 1 -w "$h" 'echo ran'                       # -p beats ssh_config's Port
expect_status 255
expect_contains "$err" "port 1: Connection refused" "-p"

run_ssh -p 1 -w "$h:$CLUSTER_PORT" 'echo ran'         # host:port beats -p
expect_status 0
expect_eq "$out" "$h:$CLUSTER_PORT: ran"

run_ssh -o Port=1 -w "$h" 'echo ran'                  # -o beats the file
expect_status 255

run_ssh -l nosuchuser -w "$h" 'id -un'                # -l beats ssh_config's User
expect_status 255
expect_contains "$err" "permission denied for user nosuchuser" "-l"

run_ssh -l nosuchuser -w "$me@$h" 'id -un'            # user@host beats -l
expect_status 0
expect_eq "$out" "$me@$h: $me"

run_pdx -F "$SCRATCH/missing_config" -w "$h" 'true'   # a -F file that is not there
expect_usage_error

run_ssh -o 'Port=notaport' -w "$h" 'true'             # a bad value of a keyword pdx uses
expect_usage_error

# No host key algorithm in common (as with an RSA-only OpenSSH >= 8.8 server): say what to do.
run_ssh -o HostKeyAlgorithms=ssh-rsa -w "$h" "touch $SCRATCH/ran"
expect_status 255
expect_contains "$err" "no key exchange, host key, cipher or MAC algorithm in common" "kex failure"
expect_contains "$err" "HostKeyAlgorithms +ssh-rsa" "kex failure hint"
[[ -e $SCRATCH/ran ]] && fail "a command ran without a handshake"
true
