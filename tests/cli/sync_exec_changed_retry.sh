# pdx sync of a file that changes while sync has it in hand: the file is read and sent again,
# whole, once (as rsync sends again a file whose checksum failed), and lands whole as it is now;
# one that keeps changing fails by name, exit 1, and no host keeps a mix of two versions.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
mkdir -p "$SCRATCH/src"
f=$SCRATCH/src/f
head -c 4194304 /dev/urandom > "$f"
run_pdx -R exec -w 'h[1-2]' sync "$SCRATCH/src/" "$SCRATCH/dest/%h/"
expect_status 0

# Changed here (a delta to send), then once more after sync scanned it and before it reads it:
# the agent asked for the hosts' signatures changes it first (through --agent).
printf 'changed before the scan' | dd of="$f" bs=1 seek=1000 conv=notrunc status=none
cat > "$SCRATCH/agent" <<SH
#!/bin/sh
case "\$*" in *--signatures*)
  [ -e "$SCRATCH/once" ] || { : > "$SCRATCH/once"; printf 'changed after the scan' | dd of="$f" bs=1 seek=2000000 conv=notrunc status=none; }
esac
exec "$PDX" "\$@"
SH
chmod +x "$SCRATCH/agent"
run_pdx -R exec -w 'h[1-2]' sync --agent "$SCRATCH/agent" "$SCRATCH/src/" "$SCRATCH/dest/%h/"
expect_status 0
[[ -e $SCRATCH/once ]] || fail "the file was not changed during the sync"
expect_eq "$err" "" "stderr"
for h in h1 h2; do cmp "$f" "$SCRATCH/dest/$h/f" || fail "$h: f is not the source as it is now"; done

# Changing all the time: it fails, by name, and each host keeps its copy of before.
cp "$SCRATCH/dest/h1/f" "$SCRATCH/before"
head -c 67108864 /dev/urandom > "$f"
run_changing 'printf %s "$RANDOM" | dd of="$f" bs=1 seek=$(( RANDOM * 1000 )) conv=notrunc status=none' \
  "$PDX" -R exec -w h1 sync "$SCRATCH/src/" "$SCRATCH/dest/%h/"
expect_status 1
expect_eq "$err" "pdx: error: $f: changed while being sent" "stderr (changing)"
cmp -s "$SCRATCH/before" "$SCRATCH/dest/h1/f" || fail "h1 did not keep its copy of before"
no_leftovers "$SCRATCH/dest"
