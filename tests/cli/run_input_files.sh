# Files named on the command line that are not what they claim (a directory, a device, a file
# over 64 MiB): one line saying so, exit 2, nothing run; /dev/zero is refused at once.
source "$(dirname "$0")/../lib/common.sh"

mkdir "$SCRATCH/dir"
start_ms=$(( $(date +%s%N) / 1000000 ))
run_pdx -F "$SCRATCH/dir" -w 127.0.0.1 true
expect_usage_error
expect_eq "$err" "pdx: error: cannot read ssh config $SCRATCH/dir: is a directory"
run_pdx -F /dev/zero -w 127.0.0.1 true
expect_usage_error
expect_eq "$err" "pdx: error: cannot read ssh config /dev/zero: not a regular file"
truncate -s 65M "$SCRATCH/big"
run_pdx -F "$SCRATCH/big" -w 127.0.0.1 true
expect_usage_error
expect_eq "$err" "pdx: error: cannot read ssh config $SCRATCH/big: over 64 MiB"

run_pdx -R exec -w a --env-file "$SCRATCH/dir" "touch $SCRATCH/ran"
expect_usage_error
expect_eq "$err" "pdx: error: --env-file $SCRATCH/dir: is a directory"
run_pdx -R exec -w a --env-file /dev/zero "touch $SCRATCH/ran"
expect_usage_error
expect_eq "$err" "pdx: error: --env-file /dev/zero: not a regular file"
run_pdx -R exec -w "^$SCRATCH/dir" "touch $SCRATCH/ran"
expect_usage_error
expect_eq "$err" "pdx: error: cannot read hostfile '$SCRATCH/dir': is a directory"
(( $(date +%s%N) / 1000000 - start_ms < 3000 )) || fail "refusing these files took over 3 s"
[[ -e "$SCRATCH/ran" ]] && fail "a command ran despite a bad input file"
true
