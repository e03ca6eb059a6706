# -b folds identical output of many hosts under one folded host set, like clush -b.
source "$(dirname "$0")/../lib/common.sh"

run_pdx -R exec -b -w 'n[1-100]' -x n77 'if [ $PDX_RANK -lt 50 ]; then echo A; else echo B; fi'
expect_status 0
rule=---------------
expected="$rule
n[1-50] (50)
$rule
A
$rule-----
n[51-76,78-100] (49)
$rule-----
B"
expect_eq "$out" "$expected" "gathered output"
