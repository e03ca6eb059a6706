# pdx push --no-agent to a host whose disk fills (a 4 MiB tmpfs as its DEST): that host fails on
# one line naming the file and "No space left on device" (not only tar's "Exiting with failure
# status"), the others complete, exit 1; nothing is placed on the full host, nothing is left.
# The same with --extract.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host and a tmpfs (root)"
(( CLUSTER_SIZE >= 3 )) || skip "needs 3 hosts"
hosts=$(head -n 3 "$HOSTFILE" | paste -sd,)
dest=noagentfull.$$  # the homes may be shared by concurrent test clusters: a name of this run's
clean_on_hosts 3 "$dest"
full_disk 2 "$dest" 4m
mkdir "$SCRATCH/src"
head -c 1048576 /dev/urandom > "$SCRATCH/src/a"
head -c 6291456 /dev/urandom > "$SCRATCH/src/b"  # cannot fit

run_ssh -w "$hosts" push --no-agent "$SCRATCH/src" "$dest/files/"
expect_status 1
expect_eq "$out" "pdx: 127.0.0.[1,3]: 7.0 MiB in 2 files" "complete hosts"
expect_eq "$err" "$(printf '%s\n' \
  "pdx: warning: 127.0.0.[1-3]: the agent cannot run there (--no-agent); pushing with the host's sh and tar (slower)" \
  "pdx: $(host 2): $dest/files/src/b: No space left on device")" "failure"
same_tree "$SCRATCH/src" "$(home_of 1)/$dest/files/src"
same_tree "$SCRATCH/src" "$(home_of 3)/$dest/files/src"
# expect_nothing_placed: no file on the full host (DEST itself made), no temporary directory.
expect_nothing_placed() {
  local left
  left=$(find "$(home_of 2)/$dest" -mindepth 1 \( -not -type d -o -name '.push.pdx-*' \))
  [[ -z $left ]] || fail "host 2: something placed or left ($1): $left"
}
expect_nothing_placed files

(cd "$SCRATCH" && "$PDX" pack src -o src.tar --split 4M) > /dev/null || fail "pack failed"
run_ssh -w "$hosts" push --no-agent --extract "$SCRATCH"/src.tar.part-* "$dest/extracted"
expect_status 1
expect_eq "$out" "pdx: 127.0.0.[1,3]: 7.0 MiB in 2 files" "complete hosts (--extract)"
expect_eq "$err" "$(printf '%s\n' \
  "pdx: warning: 127.0.0.[1-3]: the agent cannot run there (--no-agent); pushing with the host's sh and tar (slower)" \
  "pdx: $(host 2): src/b: No space left on device")" "failure (--extract)"
expect_nothing_placed --extract
