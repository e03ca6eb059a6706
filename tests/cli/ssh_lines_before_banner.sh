# A server that sends lines before its identification (RFC 4253 allows them) and never
# identifies: after 1024 lines, as OpenSSH, that host fails with why, within -t, while the other
# hosts run; and pdx, never stuck reading them, ends promptly on SIGTERM.
source "$(dirname "$0")/../lib/ssh_common.sh"

# listen NAME PAUSE: a listener on 127.0.0.247 writing lines without end to every connection,
# 100 at a time, PAUSE seconds apart; its port in $SCRATCH/NAME.
listen() {
  python3 -c '
import socket, sys, threading, time
s = socket.socket(); s.bind(("127.0.0.247", 0)); s.listen(16)
print(s.getsockname()[1], flush=True)
def flood(c):
    try:
        while True:
            c.sendall(b"not ssh yet, a line before the banner\r\n" * 100); time.sleep(float(sys.argv[1]))
    except OSError: pass
while True:
    c, _ = s.accept(); threading.Thread(target=flood, args=(c,), daemon=True).start()
' "$2" > "$SCRATCH/$1" &
  at_exit "kill $! 2> /dev/null"
  for _ in $(seq 50); do [[ -s $SCRATCH/$1 ]] && break; sleep 0.1; done
}
listen flood 0
flood=127.0.0.247:$(cat "$SCRATCH/flood")

start_ms=$(( $(date +%s%N) / 1000000 ))
run_ssh -t 3 -w "$(host 1),$flood,$(host 2)" 'echo up'
elapsed_ms=$(( $(date +%s%N) / 1000000 - start_ms ))
expect_status 255
expect_eq "$(sort <<< "$out")" "$(printf '%s: up\n%s: up' "$(host 1)" "$(host 2)")" "output"
expect_eq "$err" "pdx: $flood: ssh handshake: no SSH identification in the server's first 1024 lines" "summary"
(( elapsed_ms < 4000 )) || fail "the flooding host took ${elapsed_ms} ms with -t 3"

# A server that identifies after some lines is an ssh server as any other.
python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.247", 0)); s.listen(1)
print(s.getsockname()[1], flush=True)
c, _ = s.accept(); c.sendall(b"hello\r\n" * 1000 + b"SSH-2.0-NotReally\r\n"); c.recv(100)
' > "$SCRATCH/port2" &
at_exit "kill $! 2> /dev/null"
for _ in $(seq 50); do [[ -s $SCRATCH/port2 ]] && break; sleep 0.1; done
run_ssh -t 3 -w "127.0.0.247:$(cat "$SCRATCH/port2")" 'echo up'
expect_status 255
[[ $err == *"first 1024 lines"* ]] && fail "1000 lines before the identification were refused: $err"

# SIGTERM while pdx reads lines (slowly sent: 1024 lines take 10 s): it ends at once (130).
listen slow 1
"$PDX" -F "$CONFIG" -t 30 -w "127.0.0.247:$(cat "$SCRATCH/slow")" true < /dev/null > "$SCRATCH/out" 2> "$SCRATCH/err" &
pid=$!
sleep 1.5
start_ms=$(( $(date +%s%N) / 1000000 ))
kill -TERM "$pid"
wait "$pid"
status=$?
elapsed_ms=$(( $(date +%s%N) / 1000000 - start_ms ))
err=$(cat "$SCRATCH/err")
expect_status 130
expect_contains "$err" ": interrupted" "summary"
(( elapsed_ms < 2000 )) || fail "pdx took ${elapsed_ms} ms to end after SIGTERM"
true
