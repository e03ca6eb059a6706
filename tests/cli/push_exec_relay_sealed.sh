# pdx push --relay: what crosses a relay link is encrypted. Every byte the agents send on their
# TCP links is traced (strace, sendto: the links' sends; the head's stream comes on a pipe):
# a file of a known marker pushed to three hosts arrives whole, the links carried records (their
# magic is there), and the marker never shows in what went over them.
source "$(dirname "$0")/../lib/push_common.sh"
command -v strace > /dev/null || skip "needs strace"
export HOME=$SCRATCH/home
mkdir -p "$SCRATCH/src"
for ((i = 0; i < 8000; i++)); do echo "PDXSEALMARKER a line pushed in clear until now $i"; done \
  > "$SCRATCH/src/marked"
strace -f -qq -e trace=sendto -e signal=none -s 4194304 -o "$SCRATCH/trace" \
  "$PDX" -R exec -w 'h[1-3]' push --relay "$SCRATCH/src/marked" "$SCRATCH/dest/%h/" \
  < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr" || fail "push: $(cat "$SCRATCH/stderr")"
expect_eq "$(cat "$SCRATCH/stdout")" "pdx: h[1-3]: 405.2 KiB in 1 file" "summary"
for h in h1 h2 h3; do cmp -s "$SCRATCH/src/marked" "$SCRATCH/dest/$h/marked" || fail "$h: not whole"; done
grep -q 'sendto(.*"PDXR' "$SCRATCH/trace" || fail "no relay link traced"
(( $(wc -c < "$SCRATCH/trace") > $(wc -c < "$SCRATCH/src/marked") )) || fail "less traced than the file"
! grep -q PDXSEALMARKER "$SCRATCH/trace" || fail "the marker crossed a relay link in clear"
true
