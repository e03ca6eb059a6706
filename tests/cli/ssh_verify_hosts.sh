# pdx verify over ssh, 8 hosts with an account and home each: against a directory here (names
# and sizes, --hash for contents), against a manifest (counts), and with no reference, where the
# odd hosts stand out; missing, extra, changed, changed at the same size, no directory.
source "$(dirname "$0")/../lib/ssh_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"

dir=pdx-test-verify-$$
hosts="$(host 1)"
for n in $(seq 2 8); do hosts+=",$(host "$n")"; done
at_exit "run_ssh -w '$hosts' 'rm -rf $dir'"
make_tree='mkdir -p "$D/a" && printf 1234 > "$D/a/b" && printf xy > "$D/c d" && : > "$D/-e"'
D=$SCRATCH/ref sh -c "$make_tree"
run_ssh -w "$hosts" "D=$dir; $make_tree"
expect_status 0
run_ssh -w "$(host 3)" "rm $dir/a/b"
run_ssh -w "$(host 4)" "echo x > $dir/extra"
run_ssh -w "$(host 5)" "printf 12345 > $dir/a/b"
run_ssh -w "$(host 6)" "printf 4321 > $dir/a/b"
run_ssh -w "$(host 7)" "rm -r $dir"

verify() { run_pdx verify -F "$CONFIG" -w "$hosts" "$dir" "$@"; }

verify --against "$SCRATCH/ref"
expect_status 1
expect_contains "$err" "pdx: 127.0.0.[1-2,6,8]: match: 3 files, 6 B"
expect_contains "$err" "pdx: 127.0.0.3: differs: 1 missing (a/b)"
expect_contains "$err" "pdx: 127.0.0.4: differs: 1 extra (extra)"
expect_contains "$err" "pdx: 127.0.0.5: differs: 1 changed (a/b)"
expect_contains "$err" "pdx: 127.0.0.7: $dir: no such directory"
expect_lines "$err" 5 "report"

verify --against "$SCRATCH/ref" --hash
expect_status 1
expect_contains "$err" "pdx: 127.0.0.[1-2,8]: match: 3 files, 6 B"
expect_contains "$err" "pdx: 127.0.0.[5-6]: differs: 1 changed (a/b)"

# No reference: identical listings fold; the most common one is the match.
verify --hash
expect_status 1
expect_contains "$err" "pdx: 127.0.0.[1-2,8]: 3 files, 6 B, listing "
expect_lines "$err" 6 "report"

# Only the matching hosts: exit 0.
run_pdx verify -F "$CONFIG" -w "$(host 1),$(host 2),$(host 8)" "$dir" --against "$SCRATCH/ref" --hash
expect_status 0
expect_eq "$err" "pdx: 127.0.0.[1-2,8]: match: 3 files, 6 B" "report"

# Against the counts of a manifest.
"$PDX" pack "$SCRATCH/ref" -o "$SCRATCH/ref.tar" -m "$SCRATCH/ref.manifest" > /dev/null ||
  fail "pack -m"
verify -m "$SCRATCH/ref.manifest"
expect_status 1
expect_contains "$err" "pdx: 127.0.0.[1-2,6,8]: match: 3 files, 6 B"
expect_contains "$err" "pdx: 127.0.0.3: differs: 2 files, 2 B; the manifest says 3 files, 6 B"
true
