# pdx push's progress line: with stderr a terminal (a pty, made by script(1)), one line redrawn
# in place ("\r", clear to the end) at most ~10 times a second, bytes of the total and hosts,
# erased before the report; none when stderr is not a terminal or with --no-progress;
# --progress draws it anyway.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
head -c 4194304 /dev/urandom > "$SCRATCH/big"
# An agent slow to start: the push lasts several ticks of the line.
printf '#!/bin/sh\nsleep 0.4\nexec %q "$@"\n' "$PDX" > "$SCRATCH/slow-agent"
chmod +x "$SCRATCH/slow-agent"
clear=$'\r\033[K'

# tty_pdx ARGS...: pdx on a pty; its stdout and stderr as the terminal got them in $tty.
tty_pdx() {
  local start=$SECONDS
  script -qec "$(printf '%q ' "$PDX" "$@")" /dev/null < /dev/null > "$SCRATCH/tty"
  status=$?
  seconds=$((SECONDS - start + 1))
  tty=$(tr -d '\n' < "$SCRATCH/tty")  # the pty made each \n a \r\n
}

# (-u: the stream goes to an agent of its own, slow to start too, not to the one that listed.)
tty_pdx -R exec -w 'h[1-2]' -u 3600 push --agent "$SCRATCH/slow-agent" "$SCRATCH/big" \
  "$SCRATCH/out/%h/"
expect_status 0
[[ $tty == *"${clear}pdx: "*" of 8.0 MiB ("*"%), "*"/s, "*"hosts: "*" done, "*" failed, of 2"* ]] ||
  fail "no progress line on the terminal: $(cat -v "$SCRATCH/tty")"
[[ $tty == *"${clear}pdx: h[1-2]: 4.0 MiB in 1 file"$'\r' ]] ||
  fail "the line is not erased before the report: $(cat -v "$SCRATCH/tty")"
draws=$(grep -o $'\033\\[Kpdx: [0-9]' "$SCRATCH/tty" | wc -l)
((draws >= 1 && draws <= 10 * seconds + 1)) || fail "$draws draws in about $seconds s"
cmp -s "$SCRATCH/big" "$SCRATCH/out/h2/big" || fail "h2's copy differs"

tty_pdx -R exec -w 'h[1-2]' push --no-progress --agent "$SCRATCH/slow-agent" "$SCRATCH/big" \
  "$SCRATCH/again/%h/"
expect_status 0
[[ $tty != *$'\033'* ]] || fail "--no-progress drew: $(cat -v "$SCRATCH/tty")"

# Not a terminal: nothing, unless --progress.
run_pdx -R exec -w h1 push --agent "$SCRATCH/slow-agent" "$SCRATCH/big" "$SCRATCH/file/"
expect_status 0
[[ $err != *$'\r'* ]] || fail "a progress line on a file: $(cat -v "$SCRATCH/stderr")"
run_pdx -R exec -w h1 push --progress --json --agent "$SCRATCH/slow-agent" "$SCRATCH/big" \
  "$SCRATCH/forced/"
expect_status 0
[[ $err == "${clear}pdx: "*"hosts: "*"${clear}" ]] ||
  fail "--progress: $(cat -v "$SCRATCH/stderr")"
expect_lines "$out" 1 "--json with --progress"
run_pdx -R exec -w h1 push --progress --no-progress "$SCRATCH/big" "$SCRATCH/x/"
expect_usage_error
true
