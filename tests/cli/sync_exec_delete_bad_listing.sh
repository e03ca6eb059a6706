# pdx sync --delete with -R exec: a host whose agent answers the listing with malformed frames
# fails alone, with one line, and is then neither patched nor sent anything nor deleted from;
# the other hosts complete, their extras deleted.
source "$(dirname "$0")/../lib/push_common.sh"
mkdir -p "$SCRATCH/src"
printf 'new\n' > "$SCRATCH/src/f"
cat > "$SCRATCH/agent" << EOF2
#!/bin/sh
case "\$PDX_HOST \$*" in
  "h2 "*--list*) printf 'L\0\0\0\1x' ;;
  *) exec "$PDX" "\$@" ;;
esac
EOF2
chmod 0755 "$SCRATCH/agent"
for h in h1 h2; do
  mkdir -p "$SCRATCH/d/$h/src"
  printf 'extra\n' > "$SCRATCH/d/$h/src/extra"
  printf 'old\n' > "$SCRATCH/d/$h/src/f"  # to be patched
  touch -d '2001-01-01' "$SCRATCH/d/$h/src/f"
done

run_pdx -R exec -w 'h[1-2]' sync --delete --agent "$SCRATCH/agent" "$SCRATCH/src" "$SCRATCH/d/%h/"
expect_status 1
[[ $out =~ ^pdx:\ h1:\ 1\ file\ patched\ \(4\ B,\ [0-9]+\ B\ sent\),\ 1\ deleted$ ]] || fail "h1 not patched and cleaned: $out"
expect_contains "$err" "pdx: h2: malformed reply from the agent: "
expect_lines "$err" 1 "failures"
[[ -f $SCRATCH/d/h2/src/extra && $(cat "$SCRATCH/d/h2/src/f") == old ]] || fail "the failed host was changed"
[[ ! -e $SCRATCH/d/h1/src/extra ]] || fail "h1's extra was not deleted"
