# stdin is streamed to every host's command, not read whole first: 1 GiB to 4 commands in
# bounded memory; a command that reads slowly holds the others back but loses nothing; with
# more hosts than -f, the late ones get it all from the spool; and input that comes slowly
# reaches the commands as it comes.
source "$(dirname "$0")/../lib/common.sh"

/usr/bin/time -f '%M' -o "$SCRATCH/rss" "$PDX" -R exec -w 'h[1-4]' 'wc -c' \
  < <(head -c 1073741824 /dev/zero) > "$SCRATCH/out" 2> "$SCRATCH/err" || fail "pdx: $(cat "$SCRATCH/err")"
expect_eq "$(sed 's/^h[0-9]*: //' "$SCRATCH/out" | sort | uniq -c | awk '{print $1, $2}')" "4 1073741824" "bytes per host"
rss_kb=$(tail -n1 "$SCRATCH/rss")
(( rss_kb < 65536 )) || fail "max RSS ${rss_kb} KiB for 1 GiB of stdin"

head -c 30000000 /dev/urandom > "$SCRATCH/data"
want=$(sha256sum < "$SCRATCH/data")
out=$("$PDX" -R exec -w 'h[1-3]' \
  '[ %h = h2 ] && { sleep 1; dd bs=4096 status=none | sha256sum; } || sha256sum' < "$SCRATCH/data") \
  || fail "slow reader run failed"
expect_eq "$(printf '%s\n' "$out" | sed 's/^h[0-9]*: //' | sort -u)" "$want" "hashes with a slow reader"

out=$("$PDX" -R exec -f 2 -w 'h[1-7]' sha256sum < "$SCRATCH/data") || fail "-f 2 run failed"
expect_lines "$out" 7 "hosts with -f 2"
expect_eq "$(printf '%s\n' "$out" | sed 's/^h[0-9]*: //' | sort -u)" "$want" "hashes with -f 2"
[[ -z $(ls "${TMPDIR:-/tmp}" | grep pdx-stdin) ]] || fail "a stdin spool was left behind"

# The first line arrives while the writer still holds stdin open.
{ echo first; sleep 4; echo second; } | "$PDX" -R exec -w a 'head -n1; sleep 3' > "$SCRATCH/first" &
sleep 1.5
expect_eq "$(cat "$SCRATCH/first")" "a: first" "the first line, before the writer is done"
wait

# A command that does not read stdin ends the run though stdin stays open.
start=$(date +%s%N)
"$PDX" -R exec -w 'a,b' true < <(sleep 10) || fail "pdx failed with stdin left open"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
(( elapsed_ms < 3000 )) || fail "took ${elapsed_ms} ms: pdx waited for stdin to end"
true
