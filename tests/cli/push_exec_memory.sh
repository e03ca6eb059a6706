# pdx push streams: 256 MiB to 8 hosts in one shared stream, pdx's peak RSS under 64 MiB.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
head -c 268435456 /dev/urandom > "$SCRATCH/data"
/usr/bin/time -f '%M' -o "$SCRATCH/rss" "$PDX" -R exec -w 'h[1-8]' push "$SCRATCH/data" \
  "$SCRATCH/out/%h/" > "$SCRATCH/out.txt" 2> "$SCRATCH/err" || fail "push failed: $(cat "$SCRATCH/err")"
expect_eq "$(cat "$SCRATCH/out.txt")" "pdx: h[1-8]: 256.0 MiB in 1 file" "summary"
for h in h1 h8; do cmp -s "$SCRATCH/data" "$SCRATCH/out/$h/data" || fail "$h got different bytes"; done
rss_kb=$(tail -n1 "$SCRATCH/rss")
(( rss_kb < 65536 )) || fail "max RSS ${rss_kb} KiB pushing 256 MiB to 8 hosts"
