# A host whose agent sends a malformed frame fails alone, with one line naming it; one where the
# shell cannot run it (127: not found) is pushed with its sh and tar, with a warning; the other
# hosts complete.
source "$(dirname "$0")/../lib/push_common.sh"
printf 'data\n' > "$SCRATCH/f"
cat > "$SCRATCH/agent" << EOF2
#!/bin/sh
case \$PDX_HOST in
  h2) printf 'L\377\377\377\377garbage' ;;
  h3) echo 'sh: pdx: not found' >&2; exit 127 ;;
  *) exec "$PDX" "\$@" ;;
esac
EOF2
chmod 0755 "$SCRATCH/agent"

run_pdx -R exec -w 'h[1-4]' push --agent "$SCRATCH/agent" "$SCRATCH/f" "$SCRATCH/d/%h/"
expect_status 1
expect_eq "$out" "pdx: h[1,3-4]: 5 B in 1 file" "complete hosts"
expect_contains "$err" "pdx: h2: malformed reply from the agent: frame of 4294967295 bytes is over the limit"
expect_contains "$err" "pdx: warning: h3: the agent cannot run there (sh: pdx: not found); pushing with the host's sh and tar (slower)"
expect_lines "$err" 2 "failures"
[[ -f $SCRATCH/d/h1/f && -f $SCRATCH/d/h3/f && ! -e $SCRATCH/d/h2 ]] || fail "wrong hosts written"
