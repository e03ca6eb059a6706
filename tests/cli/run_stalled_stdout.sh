# A reader that stops reading does not keep Ctrl-C from working, nor commands alive after it.
source "$(dirname "$0")/../lib/common.sh"

mkfifo "$SCRATCH/fifo"
exec 3<>"$SCRATCH/fifo"  # held open, never read: pdx's writes block once the pipe is full
"$PDX" -R exec -w 'h[1-4]' "yes stalled-$$" </dev/null >"$SCRATCH/fifo" 2>/dev/null &
pid=$!
sleep 1
kill -INT $pid
sleep 0.5
kill -INT $pid 2>/dev/null  # the second one leaves at once
wait $pid
status=$?
exec 3<&-
expect_status 130
sleep 0.3
pgrep -f "yes stalled-$$" >/dev/null && fail "commands survived"
true
