# pdx push --no-agent over ssh of a tree whose names are not all UTF-8: each of 3 hosts (its own
# account and home, its own sh, GNU tar and find) gets every file byte for byte under its own
# name, the files after such a name too, and the directories with their modes and mtimes; a run
# again is up to date (the hosts' find lists those names back).
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
(( CLUSTER_SIZE >= 3 )) || skip "needs 3 hosts"
hosts=$(head -n 3 "$HOSTFILE" | paste -sd,)
dest="no agent names $(basename "$SCRATCH")"  # the homes may be shared by concurrent test runs
clean_on_hosts 3 "$dest"
src=$SCRATCH/src
make_names_tree "$src"

run_ssh -w "$hosts" push --no-agent "$src" "$dest/"
expect_status 0
expect_contains "$out" ": 3.0 MiB in 12 files"
expect_lines "$out" 1 "summary"
expect_lines "$err" 1 "warning"
for i in 1 2 3; do
  got=$(home_of "$i")/$dest/src
  same_tree "$src" "$got"
  same_dirs "$src" "$got" "host $i"
  [[ -z $(find "$(home_of "$i")/$dest" -name '.push.pdx-*') ]] || fail "host $i: temporary directory left"
done

run_ssh -w "$hosts" push --no-agent "$src" "$dest/"
expect_status 0
expect_contains "$out" ": up to date"
expect_lines "$out" 1 "summary (again)"
