# pdx as pdsh with no command: pdsh's interactive mode. A "pdsh> " prompt on stdout, each line
# run on every host (under -R exec by `sh -c`, as pdsh's exec module runs a line); empty lines
# skipped; `exit`, `quit` or EOF end it, status 0; `!cmd` runs cmd here. Off a terminal each
# line is echoed after its prompt, as Debian's pdsh 2.34 does; on one (a pty), the terminal
# echoes it. Compared byte for byte with Debian's pdsh where it is installed (`!` aside: its
# readline build reads `!` as history expansion).
source "$(dirname "$0")/../lib/pdsh_common.sh"

node=$(hostname -s)
# session INPUT ARGS...: pdx as pdsh reading INPUT; sets $out, $err, $status (bytes kept: the
# last prompt has no newline, so the outputs go through files compared with cmp).
session() {
  local input=$1
  shift
  printf '%s' "$input" | "$PDSH" "$@" > "$SCRATCH/out" 2> "$SCRATCH/err"
  status=$?
  out=$(cat "$SCRATCH/out")
  err=$(cat "$SCRATCH/err")
}
same_as_pdsh() {  # same_as_pdsh INPUT ARGS...: session, and the same bytes from Debian's pdsh
  session "$@"
  [[ -n $REAL_PDSH ]] || return 0
  local input=$1
  shift
  mkdir -p "$SCRATCH/home"  # pdsh keeps its history in ~/.pdsh
  printf '%s' "$input" | HOME=$SCRATCH/home "$REAL_PDSH" "$@" > "$SCRATCH/real_out" 2> "$SCRATCH/real_err"
  expect_eq "$?" "$status" "exit status vs pdsh $*"
  cmp -s "$SCRATCH/out" "$SCRATCH/real_out" ||
    fail "stdout vs pdsh $*: [$out] [$(cat "$SCRATCH/real_out")]"
  expect_eq "$err" "$(cat "$SCRATCH/real_err")" "stderr vs pdsh $*"
}

same_as_pdsh $'echo a\n\n  \nfalse\nsh -c "echo x y"\necho %h %n\nquit\necho not run\n' -R exec -w n1
expect_status 0
expect_eq "$out" 'pdsh> echo a
n1: a
pdsh> 
pdsh>   
pdsh> false
pdsh> sh -c "echo x y"
n1: x y
pdsh> echo %h %n
n1: n1 0
pdsh> quit'
expect_eq "$err" "pdsh@$node: n1: sh exited with exit code 1"

session $'echo b\n' -R exec -w 'n[1-3]'  # EOF: the last prompt, no newline (hosts in any order)
expect_status 0
[[ $(tail -c 7 "$SCRATCH/out") == "
pdsh> " ]] || fail "EOF: the output does not end with the prompt: [$out]"
expect_eq "$(grep -c '^n[1-3]: b$' <<< "$out")" 3 "three hosts"

same_as_pdsh $'exit\n' -R exec -w n1
expect_eq "$out" "pdsh> exit"

session $'!echo local; exit 3\necho after\n' -R exec -w n1
expect_status 0
expect_eq "$out" 'pdsh> !echo local; exit 3
local
pdsh> echo after
n1: after
pdsh> '
expect_eq "$err" "pdsh@$node: exited with status 768"  # pdsh's: the wait status

# On a terminal: the terminal echoes the line, pdx does not.
python3 - "$PDSH" > "$SCRATCH/pty" << 'PY' || fail "pty session: $(cat "$SCRATCH/pty")"
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "-R", "exec", "-w", "n1"])
out, seen = b"", 0
def read_until(pattern):
    global out, seen
    end = time.time() + 10
    while pattern not in out[seen:] and time.time() < end:
        if select.select([fd], [], [], 0.1)[0]:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
    if pattern not in out[seen:]:
        sys.exit("no %r in %r" % (pattern, out))
    seen = out.index(pattern, seen) + len(pattern)
read_until(b"pdsh> ")
os.write(fd, b"echo a\r")
read_until(b"pdsh> ")
os.write(fd, b"exit\r")
while True:  # to EOF (EIO once pdx is gone)
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode().replace("\r", ""))
sys.exit(status)
PY
expect_eq "$(cat "$SCRATCH/pty")" 'pdsh> echo a
n1: a
pdsh> exit' "on a terminal"
true
