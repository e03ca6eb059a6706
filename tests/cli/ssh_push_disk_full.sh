# A host whose disk fills during a push (a 4 MiB tmpfs as its DEST): that host fails with one
# line naming the reason and the first file it could not write, the others complete, exit 1;
# on the full host each file is complete under its final name or absent, and no temporary file
# is left. The same with --extract.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host and a tmpfs (root)"
(( CLUSTER_SIZE >= 3 )) || skip "needs 3 hosts"
hosts=$(head -n 3 "$HOSTFILE" | paste -sd,)
dest=diskfull.$$  # the homes may be shared by concurrent test clusters: a name of this run's
clean_on_hosts 3 "$dest"
full_disk 2 "$dest" 4m
mkdir "$SCRATCH/src"
head -c 1048576 /dev/urandom > "$SCRATCH/src/a"
head -c 6291456 /dev/urandom > "$SCRATCH/src/b"  # cannot fit
head -c 1048576 /dev/urandom > "$SCRATCH/src/c"  # fits once b's space is given back
head -c 6291456 /dev/urandom > "$SCRATCH/src/d"  # cannot fit either

# expect_full_host DIR: each file under DIR on the full host is complete, none is temporary.
expect_full_host() {
  local f
  for f in a b c d; do
    [[ ! -e $1/$f ]] || cmp -s "$SCRATCH/src/$f" "$1/$f" || fail "host 2: $f half-written"
  done
  no_leftovers "$1"
}

run_ssh -w "$hosts" push "$SCRATCH/src" "$dest/files/"
expect_status 1
expect_eq "$out" "pdx: 127.0.0.[1,3]: 14.0 MiB in 4 files" "complete hosts"
expect_eq "$err" "pdx: $(host 2): No space left on device ($dest/files/src/b and 1 more)" "failure"
same_tree "$SCRATCH/src" "$(home_of 1)/$dest/files/src"
same_tree "$SCRATCH/src" "$(home_of 3)/$dest/files/src"
expect_full_host "$(home_of 2)/$dest/files/src"
cmp -s "$SCRATCH/src/c" "$(home_of 2)/$dest/files/src/c" || fail "host 2: c, which fits, not written"

rm -rf "$(home_of 2)/$dest/files"
(cd "$SCRATCH" && "$PDX" pack src -o src.tar --split 4M) > /dev/null || fail "pack failed"
run_ssh -w "$hosts" push --extract "$SCRATCH"/src.tar.part-* "$dest/extracted"
expect_status 1
expect_eq "$out" "pdx: 127.0.0.[1,3]: 14.0 MiB in 4 files" "complete hosts (--extract)"
# unpack stops at the first entry that does not fit
expect_eq "$err" "pdx: $(host 2): No space left on device ($dest/extracted/src/b)" "failure (--extract)"
same_tree "$SCRATCH/src" "$(home_of 1)/$dest/extracted/src"
expect_full_host "$(home_of 2)/$dest/extracted/src"
