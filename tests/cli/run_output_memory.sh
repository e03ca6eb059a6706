# -b and --json hold each host's output until it can be printed; memory stays bounded however
# much they print (the rest waits in an unlinked file in $TMPDIR), and what is printed is whole.
source "$(dirname "$0")/../lib/common.sh"

export TMPDIR="$SCRATCH"
max_rss_kib() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$SCRATCH/time"; }

# 4 hosts x 200 MB of identical output: one group, printed once.
/usr/bin/time -v -o "$SCRATCH/time" "$PDX" -R exec -w 'h[1-4]' -b 'yes | head -c 200000000' \
  </dev/null >"$SCRATCH/out"
expect_eq "$?" 0 "status"
rss=$(max_rss_kib)
((rss < 65536)) || fail "-b peak RSS ${rss} KiB"
rule=---------------
expect_eq "$(head -3 "$SCRATCH/out")" "$rule
h[1-4] (4)
$rule" "-b title"
expect_eq "$(tail -n +4 "$SCRATCH/out" | sha256sum)" "$(yes | head -c 200000000 | sha256sum)" \
  "-b output"
expect_eq "$(ls -A "$SCRATCH" | grep -v '^out$\|^time$')" "" "files left in TMPDIR"

# Two distinct large outputs: both printed, each once.
"$PDX" -R exec -w 'h[1-3]' -b 'if [ $PDX_RANK = 1 ]; then yes b; else yes a; fi | head -c 20000000' \
  </dev/null >"$SCRATCH/out"
expect_eq "$(grep -v '^[ab]$' "$SCRATCH/out")" "$rule
h[1,3] (2)
$rule
$rule
h2 (1)
$rule" "two groups"
expect_eq "$(grep -c '^a$' "$SCRATCH/out") $(grep -c '^b$' "$SCRATCH/out")" "10000000 10000000" \
  "line counts"

# --json: 4 hosts x a 50 MB line, escaped a piece at a time.
/usr/bin/time -v -o "$SCRATCH/time" "$PDX" -R exec -w 'h[1-4]' --json \
  'head -c 50000000 /dev/zero | tr "\0" "\t"' </dev/null >"$SCRATCH/out"
expect_eq "$?" 0 "status"
rss=$(max_rss_kib)
((rss < 65536)) || fail "--json peak RSS ${rss} KiB"
lengths=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    assert o["stdout"] == "\t" * 50000000, o["host"]
    print(o["host"])' "$SCRATCH/out" | sort | tr '\n' ' ')
expect_eq "$lengths" "h1 h2 h3 h4 " "--json hosts"
