# pdx preflight's usage errors, before any host is reached: one line, exit 2.
source "$(dirname "$0")/../lib/common.sh"

away=(-w nohost.invalid,other.invalid -t 2)
for bad in --need-disk=/data --need-disk=/data:lots --need-disk=:1G --bogus --port=0 \
  --master=elsewhere --against=x --min-shm=big; do
  run_pdx "${away[@]}" preflight "$bad"
  expect_usage_error
done
run_pdx preflight --need-disk /data:1Q -w nohost.invalid
expect_usage_error
expect_contains "$err" "pdx: error: --need-disk '/data:1Q': "
run_pdx "${away[@]}" preflight --master elsewhere
expect_eq "$err" "pdx: error: --master elsewhere is not one of the hosts"
