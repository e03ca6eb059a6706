# -E values with quotes, $(), backticks and newlines arrive on the host literally, and the
# command string arrives as typed.
source "$(dirname "$0")/../lib/ssh_common.sh"

value=$'it\'s "quoted" $(touch /tmp/pdx-pwned.$$) `id` \\ $HOME\nsecond line'
run_ssh -E "V=$value" -w "$(host 1)" 'printf "%s" "$V" | od -An -c | tr -s " \n" " "; echo; date +%s >/dev/null && echo "%h %u"'
expect_status 0
expect_eq "$(sed -n 1p "$SCRATCH/stdout")" "$(host 1): $(printf '%s' "$value" | od -An -c | tr -s ' \n' ' ')" "value"
expect_eq "$(sed -n 2p "$SCRATCH/stdout")" "$(host 1): %h %u" "command as typed"
[[ -e /tmp/pdx-pwned.$$ ]] && fail "a \$() inside -E ran"
true
