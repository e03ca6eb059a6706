# pdx sync of a file the hosts do not have (it goes whole) that changes while sync reads it: it
# is read and sent again as it is now, a bounded number of times, and lands whole; one that keeps
# changing fails by name on one line, exit 1, and no host keeps it or a mix of two versions.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
mkdir -p "$SCRATCH/src"
f=$SCRATCH/src/f
# Larger than the broadcast's window (16 MiB): its reading waits for the hosts' agents.
head -c 67108864 /dev/urandom > "$f"
printf 'small\n' > "$SCRATCH/src/a"

# Appended to once, while sync reads it: the agent the first host runs to receive the files
# appends before it reads a byte, so the stream holds at most a window of f then.
cat > "$SCRATCH/agent" <<SH
#!/bin/sh
case "\$*" in *--receive*)
  [ -e "$SCRATCH/once" ] || { : > "$SCRATCH/once"; head -c 4096 /dev/urandom >> "$f"; }
esac
exec "$PDX" "\$@"
SH
chmod +x "$SCRATCH/agent"
run_pdx -R exec -w 'h[1-2]' sync --agent "$SCRATCH/agent" "$SCRATCH/src/" "$SCRATCH/dest/%h/"
[[ -e $SCRATCH/once ]] || fail "the file was not changed during the sync"
expect_eq "$err" "" "stderr"
expect_status 0
expect_contains "$out" "2 files sent whole"
for h in h1 h2; do
  cmp "$f" "$SCRATCH/dest/$h/f" || fail "$h: f is not the source as it is now"
  cmp "$SCRATCH/src/a" "$SCRATCH/dest/$h/a" || fail "$h: a not sent"
done
no_leftovers "$SCRATCH/dest"

# Appended to all the time, as a log: every read of it fails; it is named once, exit 1, and the
# hosts hold neither it nor any part of it.
g=$SCRATCH/src/g
head -c 67108864 /dev/urandom > "$g"
run_changing 'head -c 4096 /dev/urandom >> "$g"; sleep 0.01' \
  "$PDX" -R exec -w 'h[1-2]' sync "$SCRATCH/src/" "$SCRATCH/dest/%h/"
expect_status 1
expect_eq "$err" "pdx: error: $g: changed while being sent" "stderr (changing)"
expect_eq "$out" "pdx: h[1-2]: nothing sent" "stdout (changing)"
for h in h1 h2; do
  [[ ! -e $SCRATCH/dest/$h/g ]] || fail "$h: g kept though it changed each time it was read"
  cmp "$f" "$SCRATCH/dest/$h/f" || fail "$h: f changed"
done
no_leftovers "$SCRATCH/dest"
