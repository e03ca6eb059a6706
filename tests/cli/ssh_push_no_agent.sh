# pdx push --no-agent over ssh: a tree with awkward names, and the parts of a split archive with
# --extract, reach 8 hosts (each its own account and home) through their own sh and tar, byte
# for byte, with modes and mtimes; one warning names them all; no agent deployed, nothing left.
# A run again sends nothing, and then only a changed file.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 8 ? CLUSTER_SIZE : 8 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
dest="no agent $(basename "$SCRATCH")"  # the homes may be shared by concurrent test runs
clean_on_hosts "$n" "$dest"
make_tree "$SCRATCH/src"
sha=$(sha256sum < "$PDX" | cut -c1-64)
for i in $(seq "$n"); do rm -rf "$(home_of "$i")/.cache/pdx/$sha"; done

run_ssh -w "$hosts" push --no-agent "$SCRATCH/src" "$dest/tree/"
expect_status 0
expect_contains "$out" ": 3.0 MiB in 8 files"
expect_lines "$out" 1 "summary"
expect_contains "$err" "the agent cannot run there (--no-agent); pushing with the host's sh and tar (slower)"
expect_lines "$err" 1 "warning"
for i in $(seq "$n"); do
  home=$(home_of "$i")
  same_tree "$SCRATCH/src" "$home/$dest/tree/src"
  [[ -z $(find "$home/$dest" -name '.push.pdx-*') ]] || fail "host $i: temporary directory left"
  [[ ! -e $home/.cache/pdx/$sha ]] || fail "host $i: the agent was deployed"
  [[ ! -e $home/PWNED && ! -e "$home/$dest/tree/PWNED" ]] || fail "host $i: a name was run"
done

# Again: each host's find lists what it has, awkward names too, and nothing is sent, in the
# agent's words; then a changed file alone is sent again.
run_ssh -w "$hosts" push --no-agent "$SCRATCH/src" "$dest/tree/"
expect_status 0
expect_contains "$out" ": up to date"
expect_lines "$out" 1 "summary (again)"
expect_lines "$err" 1 "warning (again)"
printf 'a new line\n' > "$SCRATCH/src/new
line"
run_ssh -w "$hosts" push --no-agent "$SCRATCH/src" "$dest/tree/"
expect_status 0
expect_contains "$out" ": 11 B in 1 file"
expect_lines "$out" 1 "summary (changed)"
for i in $(seq "$n"); do same_tree "$SCRATCH/src" "$(home_of "$i")/$dest/tree/src"; done

(cd "$SCRATCH" && "$PDX" pack src -o data.tar.zst --split 1M) > /dev/null || fail "pack failed"
run_ssh -w "$hosts" push --no-agent --extract "$SCRATCH"/data.tar.zst.part-* "$dest/extracted"
expect_status 0
expect_contains "$out" ": 3.0 MiB in 8 files"
expect_lines "$err" 1 "warning"
for i in $(seq "$n"); do
  home=$(home_of "$i")
  same_tree "$SCRATCH/src" "$home/$dest/extracted/src"
  [[ -z $(find "$home/$dest" -name '.push.pdx-*' -o -name '*.part-*') ]] || fail "host $i: left over"
done
