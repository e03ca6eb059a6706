# pdx push over direct links (--data-via direct, which -R exec's local agents take too): 96 MiB
# to 16 hosts, each over a sealed link of its own fed from one shared stream, pdx's peak RSS
# under 64 MiB and every host's bytes right.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
head -c 100663296 /dev/urandom > "$SCRATCH/data"
/usr/bin/time -f '%M' -o "$SCRATCH/rss" "$PDX" -R exec -w 'h[1-16]' push --data-via direct \
  "$SCRATCH/data" "$SCRATCH/out/%h/" > "$SCRATCH/out.txt" 2> "$SCRATCH/err" ||
  fail "push failed: $(cat "$SCRATCH/err")"
expect_eq "$(cat "$SCRATCH/out.txt")" "pdx: h[1-16]: 96.0 MiB in 1 file" "summary"
expect_eq "$(cat "$SCRATCH/err")" "" "no warning"
for h in h1 h9 h16; do cmp -s "$SCRATCH/data" "$SCRATCH/out/$h/data" || fail "$h got different bytes"; done
rss_kb=$(tail -n1 "$SCRATCH/rss")
(( rss_kb < 65536 )) || fail "max RSS ${rss_kb} KiB pushing 96 MiB to 16 hosts over direct links"
