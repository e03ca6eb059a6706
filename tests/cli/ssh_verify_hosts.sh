# pdx verify over ssh, 8 hosts with an account and home each: against a directory here (names
# and sizes, --hash for contents), against a manifest (counts), and with no reference, where the
# odd hosts stand out; missing, extra, changed, changed at the same size, no directory; names
# with spaces, a newline and a leading '-'. Through the agent (deployed to each host as push
# does) and through the hosts' find and sha256sum (--no-agent): the same reports.
source "$(dirname "$0")/../lib/ssh_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"

dir=pdx-test-verify-$$
hosts="$(host 1)"
for n in $(seq 2 8); do hosts+=",$(host "$n")"; done
at_exit "run_ssh -w '$hosts' 'rm -rf $dir'"
make_tree='mkdir -p "$D/a" && printf 1234 > "$D/a/b" && printf xy > "$D/c d" && : > "$D/-e" &&
  printf z > "$D/new
line"'
D=$SCRATCH/ref sh -c "$make_tree"
run_ssh -w "$hosts" "D=$dir; $make_tree"
expect_status 0
run_ssh -w "$(host 3)" "rm $dir/a/b"
run_ssh -w "$(host 4)" "echo x > $dir/extra"
run_ssh -w "$(host 5)" "printf 12345 > $dir/a/b"
run_ssh -w "$(host 6)" "printf 4321 > $dir/a/b"
run_ssh -w "$(host 7)" "rm -r $dir"
"$PDX" pack "$SCRATCH/ref" -o "$SCRATCH/ref.tar" -m "$SCRATCH/ref.manifest" > /dev/null ||
  fail "pack -m"

verify() { run_pdx verify -F "$CONFIG" -w "$hosts" "$dir" "$@"; }

# reports [--no-agent]: every case, by the agent or by the hosts' tools; $report holds the last
# no-reference report, to compare.
reports() {
  local way=("$@") said=0
  [[ ${1:-} == --no-agent ]] && said=1
  verify --against "$SCRATCH/ref" "${way[@]}"
  expect_status 1
  expect_contains "$err" "pdx: 127.0.0.[1-2,6,8]: match: 4 files, 7 B"
  expect_contains "$err" "pdx: 127.0.0.3: differs: 1 missing (a/b)"
  expect_contains "$err" "pdx: 127.0.0.4: differs: 1 extra (extra)"
  expect_contains "$err" "pdx: 127.0.0.5: differs: 1 changed (a/b)"
  expect_contains "$err" "pdx: 127.0.0.7: $dir: no such directory"
  expect_lines "$err" $((5 + said)) "report ${way[*]}"

  verify --against "$SCRATCH/ref" --hash "${way[@]}"
  expect_status 1
  expect_contains "$err" "pdx: 127.0.0.[1-2,8]: match: 4 files, 7 B"
  expect_contains "$err" "pdx: 127.0.0.[5-6]: differs: 1 changed (a/b)"

  # No reference: identical listings fold; the most common one is the match.
  verify --hash "${way[@]}"
  expect_status 1
  expect_contains "$err" "pdx: 127.0.0.[1-2,8]: 4 files, 7 B, listing "
  expect_lines "$err" $((6 + said)) "report ${way[*]}"
  verify "${way[@]}"
  report=${err#*slower)$'\n'}

  # Only the matching hosts: exit 0.
  run_pdx verify -F "$CONFIG" -w "$(host 1),$(host 2),$(host 8)" "$dir" --against "$SCRATCH/ref" \
    --hash "${way[@]}"
  expect_status 0
  expect_contains "$err" "pdx: 127.0.0.[1-2,8]: match: 4 files, 7 B" "report ${way[*]}"

  # Against the counts of a manifest.
  verify -m "$SCRATCH/ref.manifest" "${way[@]}"
  expect_status 1
  expect_contains "$err" "pdx: 127.0.0.[1-2,6,8]: match: 4 files, 7 B"
  expect_contains "$err" "pdx: 127.0.0.3: differs: 3 files, 3 B; the manifest says 4 files, 7 B"
}

reports
[[ $err != *warning* ]] || fail "a warning through the agent: $err"
agent_report=$report
reports --no-agent
expect_contains "$err" "pdx: warning: 127.0.0.[1-8]: the agent cannot run there (--no-agent); verifying with the host's find and sha256sum (slower)"
expect_eq "$report" "$agent_report" "the same listing by either way (sizes: no hash)"
true
