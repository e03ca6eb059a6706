# 1,000 hosts through -R exec at the default fan-out: all run, all counted.
source "$(dirname "$0")/../lib/common.sh"

run_pdx -R exec -w 'n[0001-1000]' 'echo $PDX_RANK'
expect_status 0
expect_lines "$out" 1000
expect_eq "$(cut -d' ' -f2 "$SCRATCH/stdout" | sort -n | tail -1)" 999 "highest rank"
