# A host whose agent answers the signature request with malformed frames fails alone, with one
# line; nothing is written there; the other hosts complete.
source "$(dirname "$0")/../lib/push_common.sh"
head -c 100000 /dev/urandom > "$SCRATCH/f"
cat > "$SCRATCH/agent" << EOF2
#!/bin/sh
case "\$PDX_HOST \$*" in
  "h2 "*--signatures*) printf 'H\377\377\377\377garbage' ;;
  "h3 "*--signatures*) printf 'S\0\0\0\0' ;;
  *) exec "$PDX" "\$@" ;;
esac
EOF2
chmod 0755 "$SCRATCH/agent"

run_pdx -R exec -w 'h[1-3]' sync --agent "$SCRATCH/agent" "$SCRATCH/f" "$SCRATCH/d/%h/"
expect_status 1
expect_eq "$out" "pdx: h1: 1 file sent whole (97.7 KiB)" "complete hosts"
expect_contains "$err" "pdx: h2: malformed reply from the agent: frame of 4294967295 bytes is over the limit"
expect_contains "$err" "pdx: h3: malformed reply from the agent: malformed summary frame"
expect_lines "$err" 2 "failures"
cmp -s "$SCRATCH/f" "$SCRATCH/d/h1/f" || fail "h1 not written"
[[ ! -e $SCRATCH/d/h2 && ! -e $SCRATCH/d/h3 ]] || fail "a failed host was written"
