# pdx push's one-line warnings (here: the agent cannot run, the host's POSIX tools used) on a
# terminal with the progress line drawn: the line is cleared first, the warning is a row of its
# own, and the line is drawn again below it (then erased before the report), never run together.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
head -c 1048576 /dev/urandom > "$SCRATCH/big"
# An agent that cannot run, slow to say so: the line is drawn before the warning.
printf '#!/bin/sh\nsleep 0.4\necho "cannot execute binary file" >&2\nexit 126\n' > "$SCRATCH/no-agent"
chmod +x "$SCRATCH/no-agent"
clear=$'\r\033[K'

script -qec "$(printf '%q ' "$PDX" -R exec -w 'h[1-2]' push --agent "$SCRATCH/no-agent" \
  "$SCRATCH/big" "$SCRATCH/out/%h/")" /dev/null < /dev/null > "$SCRATCH/tty"
status=$?
expect_status 0
tty=$(tr -d '\n' < "$SCRATCH/tty")  # the pty made each \n a \r\n
warning="pdx: warning: h[1-2]: the agent cannot run there (cannot execute binary file); pushing with the host's sh and tar (slower)"
[[ $tty == *"${clear}pdx: "*"hosts: "*" of 2"* ]] ||
  fail "no progress line on the terminal: $(cat -v "$SCRATCH/tty")"
[[ $tty == *"${clear}${warning}"$'\r'"pdx: "*"hosts: "* ]] ||
  fail "the warning is not a row of its own above the line: $(cat -v "$SCRATCH/tty")"
[[ $tty == *"${clear}pdx: h[1-2]: 1.0 MiB in 1 file"$'\r' ]] ||
  fail "the line is not erased before the report: $(cat -v "$SCRATCH/tty")"
cmp -s "$SCRATCH/big" "$SCRATCH/out/h2/big" || fail "h2's copy differs"
true
