# ProxyCommand: run per host through /bin/sh (%h %p %r %n %% expanded), its stdin and stdout the
# connection, its stderr on pdx's prefixed with the host; `ProxyCommand none` connects directly;
# a token pdx does not expand is a usage error, never ignored.
source "$(dirname "$0")/../lib/bastion_common.sh"
bastion_start 2

printf '#!/bin/sh\necho "proxy for $1 as $2 ($3)" >&2\nexec ssh -F %s -W "$4" bastion1\n' "$dir/ssh_config" > "$SCRATCH/proxy"
chmod +x "$SCRATCH/proxy"
run_jump -o "ProxyCommand=$SCRATCH/proxy %n %r 100%% %h:%p" -w "^$dir/hosts1" 'echo $SSH_CONNECTION'
expect_status 0
expect_eq "$(sort <<< "$out" | awk '{print $1, $4}')" "198.18.202.1: 198.18.202.1
198.18.202.2: 198.18.202.2" "through the ProxyCommand"
expect_eq "$(sort <<< "$err")" "198.18.202.1: proxy for 198.18.202.1 as pdx001 (100%)
198.18.202.2: proxy for 198.18.202.2 as pdx002 (100%)" "its stderr, prefixed"
[[ -z $(pgrep -f -- "-W 198.18.202.[12]:2222 bastion1") ]] || fail "a ProxyCommand left running"

run_jump -o "ProxyCommand=echo cannot >&2; exit 3" -w 198.18.202.1 true
expect_status 255
expect_contains "$err" "198.18.202.1: cannot" "a failed ProxyCommand's stderr"
expect_contains "$err" "pdx: 198.18.202.1: ssh handshake: connection lost" "a failed ProxyCommand"

printf 'Include %s\nHost 198.18.202.*\n  ProxyCommand none\n  ProxyJump bastion1\n' "$dir/ssh_config" > "$SCRATCH/none"
run_pdx -F "$SCRATCH/none" -t 2 -w 198.18.202.1 true
expect_status 255
expect_contains "$err" "connect to port 2222: No route to host" "ProxyCommand none: direct, the later ProxyJump not taken"

run_jump -o "ProxyCommand=nc %h %k" -w 198.18.202.1 true
expect_status 2
expect_contains "$err" "ProxyCommand token '%k'" "an unknown token"
true
