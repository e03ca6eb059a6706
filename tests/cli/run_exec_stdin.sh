# stdin is broadcast to every host's command when it is not a terminal; -n disables it.
source "$(dirname "$0")/../lib/common.sh"

head -c 300000 /dev/urandom >"$SCRATCH/data"
"$PDX" -R exec -w 'h[1-120]' 'cat > '"$SCRATCH"'/copy-%h' <"$SCRATCH/data" || fail "pdx failed"
for i in $(seq 1 120); do
  cmp -s "$SCRATCH/data" "$SCRATCH/copy-h$i" || fail "h$i got different bytes"
done

out=$(echo hello | "$PDX" -R exec -n -w a 'cat; echo end')
expect_eq "$out" "a: end" "-n output"
