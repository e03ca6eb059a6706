# A known_hosts file that is not one (/dev/zero, a directory) is refused at once, not read
# without end: every host fails saying so, on one folded line, and nothing runs.
source "$(dirname "$0")/../lib/ssh_common.sh"

mkdir "$SCRATCH/dir"
for file in /dev/zero "$SCRATCH/dir"; do
  start_ms=$(( $(date +%s%N) / 1000000 ))
  run_ssh -o UserKnownHostsFile="$file" -o StrictHostKeyChecking=accept-new \
    -w "$(host 1),$(host 2)" "touch $SCRATCH/ran"
  expect_status 255
  expect_lines "$err" 1 "summary ($file)"
  expect_contains "$err" "pdx: 127.0.0.[1-2]: cannot read known_hosts $file: " "summary ($file)"
  (( $(date +%s%N) / 1000000 - start_ms < 3000 )) || fail "refusing $file took over 3 s"
done
[[ -e "$SCRATCH/ran" ]] && fail "a command ran without its host key checked"
true
