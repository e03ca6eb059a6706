# -R exec over 120 hosts: every host's line arrives once, prefixed, with its place in the run.
source "$(dirname "$0")/../lib/common.sh"

run_pdx -R exec -w 'h[001-120]' 'echo "%h $PDX_HOST $PDX_RANK/$PDX_NHOSTS $PDX_MASTER"'
expect_status 0
expect_lines "$out" 120
expect_contains "$out" "h001: h001 h001 0/120 h001"
expect_contains "$out" "h120: h120 h120 119/120 h001"
for i in $(seq -w 1 120); do
  grep -qx "h$i: h$i h$i $((10#$i - 1))/120 h001" "$SCRATCH/stdout" || fail "line of h$i missing"
done
expect_eq "$err" "" "stderr"

# -N drops the prefix; a last line without newline is still printed whole.
run_pdx -R exec -N -w 'a,b' 'printf "x\ny"'
expect_status 0
expect_eq "$(sort "$SCRATCH/stdout" | tr '\n' ' ')" "x x y y " "-N output"

# stderr keeps its own stream, prefixed too.
run_pdx -R exec -w 'a' 'echo out; echo err >&2'
expect_eq "$out" "a: out"
expect_eq "$err" "a: err"

# The command arrives as typed: printf formats and date +%s are not templated.
run_pdx -R exec -w 'a' "printf '%s|%d\n' x 5; echo '%%'"
expect_eq "$out" $'a: x|5\na: %'
