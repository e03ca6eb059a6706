# Output as the host wrote it: a line over 1 MiB, binary bytes, a last line without newline.
source "$(dirname "$0")/../lib/ssh_common.sh"

h=$(host 1)
run_ssh -w "$h" "head -c 1500000 /dev/zero | tr '\\0' a; echo; printf 'tail'"
expect_status 0
expect_lines "$out" 2
expect_eq "$(head -n1 "$SCRATCH/stdout" | wc -c)" $(( ${#h} + 2 + 1500000 + 1 )) "long line"
expect_eq "$(tail -n1 "$SCRATCH/stdout")" "$h: tail" "last line without newline"

# Binary: every byte value, exactly, through --outdir.
head -c 300000 /dev/urandom > "$SCRATCH/blob"
"$PDX" -F "$CONFIG" -w "$h" --outdir "$SCRATCH/out" 'cat' < "$SCRATCH/blob" || fail "pdx failed"
cmp "$SCRATCH/blob" "$SCRATCH/out/$h.out" || fail "binary output differs"
true
