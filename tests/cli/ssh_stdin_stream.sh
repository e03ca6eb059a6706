# stdin over ssh is streamed to every host, in bounded memory: 512 MiB to 8 hosts through
# sha256sum, every host gets every byte, pdx's RSS stays small.
source "$(dirname "$0")/../lib/ssh_common.sh"

n=$(( CLUSTER_SIZE < 8 ? CLUSTER_SIZE : 8 ))
head -c 536870912 /dev/zero > "$SCRATCH/data"
want=$(sha256sum < "$SCRATCH/data")
# Only the n hosts, with a connect timeout far over what a loaded machine needs: with all 64
# hosts while the suite ran at -j2, handshakes queued past the default 10 s.
/usr/bin/time -f '%M' -o "$SCRATCH/rss" "$PDX" -F "$CONFIG" -t 120 \
  -w "$(head -n "$n" "$HOSTFILE" | paste -sd,)" sha256sum < "$SCRATCH/data" > "$SCRATCH/out" \
  2> "$SCRATCH/err" || fail "pdx failed: $(cat "$SCRATCH/err")"
expect_eq "$(sed 's/^[^ ]*: //' "$SCRATCH/out" | sort | uniq -c | awk '{print $1, $2}')" \
  "$n ${want%% *}" "hashes"
rss_kb=$(tail -n1 "$SCRATCH/rss")
(( rss_kb < 65536 )) || fail "max RSS ${rss_kb} KiB streaming 512 MiB of stdin"
true
