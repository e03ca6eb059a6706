# A host printing 100 MB: all of it arrives, and pdx's memory stays bounded (it reads, prints,
# reads; it never holds a host's output).
source "$(dirname "$0")/../lib/ssh_common.sh"

/usr/bin/time -f '%M' -o "$SCRATCH/rss" "$PDX" -F "$CONFIG" -w "$(host 1)" \
  'head -c 100000000 /dev/zero | tr "\\0" "x" | fold -w 99' < /dev/null > "$SCRATCH/out.count" \
  2> "$SCRATCH/err" || fail "pdx failed: $(cat "$SCRATCH/err")"
lines=$(wc -l < "$SCRATCH/out.count")
expect_eq "$lines" 1010102 "lines received"
rss_kb=$(tail -n1 "$SCRATCH/rss")
(( rss_kb < 65536 )) || fail "max RSS ${rss_kb} KiB for 100 MB of output"

# The same from 16 hosts at once (seq: 6.9 MB each), all lines whole.
n=$(( CLUSTER_SIZE < 16 ? CLUSTER_SIZE : 16 ))
/usr/bin/time -f '%M' -o "$SCRATCH/rss" "$PDX" -F "$CONFIG" -w "^$HOSTFILE" -f "$n" \
  "[ \$PDX_RANK -lt $n ] && seq 1 1000000" < /dev/null > "$SCRATCH/seq" 2> "$SCRATCH/err"
expect_eq "$(grep -c '' "$SCRATCH/seq")" $(( n * 1000000 )) "seq lines"
expect_eq "$(grep -c ': 1000000$' "$SCRATCH/seq")" "$n" "last lines"
rss_kb=$(tail -n1 "$SCRATCH/rss")
(( rss_kb < 65536 )) || fail "max RSS ${rss_kb} KiB streaming 16 hosts"
true
