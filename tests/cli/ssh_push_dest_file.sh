# DEST, or a directory below it, is a regular file on some hosts: those fail with one line per
# reason naming the path, the others complete, exit 1, and the file in the way is left as it
# was. A missing source is a usage error (exit 2) before any host is touched.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (root)"
(( CLUSTER_SIZE >= 4 )) || skip "needs 4 hosts"
hosts=$(head -n 4 "$HOSTFILE" | paste -sd,)
dest=destfile.$$  # the homes may be shared by concurrent test clusters: a name of this run's
clean_on_hosts 4 "$dest"
mkdir -p "$SCRATCH/src/sub"
printf 'data\n' > "$SCRATCH/src/sub/f"

# in_the_way N PATH: a regular file at PATH (under $dest) on host N, owned by its account.
in_the_way() {
  local home
  home=$(home_of "$1")
  mkdir -p "$(dirname "$home/$2")"
  printf 'in the way' > "$home/$2"
  chown -R "$(stat -c %u:%g "$home")" "$home/$dest"
}

in_the_way 2 "$dest"
in_the_way 3 "$dest"
run_ssh -w "$hosts" push "$SCRATCH/src" "$dest/"
expect_status 1
expect_eq "$out" "pdx: 127.0.0.[1,4]: 5 B in 1 file" "complete hosts"
expect_lines "$err" 1 "failures"
expect_eq "$err" "pdx: 127.0.0.[2-3]: Not a directory ($dest/)" "failures (DEST/ a file)"
for i in 2 3; do
  expect_eq "$(cat "$(home_of "$i")/$dest")" "in the way" "host $i's file"
done
same_tree "$SCRATCH/src" "$(home_of 4)/$dest/src"

clean_on_hosts 4 "$dest"
in_the_way 3 "$dest/src/sub"
run_ssh -w "$hosts" push "$SCRATCH/src" "$dest/"
expect_status 1
expect_eq "$out" "pdx: 127.0.0.[1-2,4]: 5 B in 1 file" "complete hosts (a file below DEST)"
expect_eq "$err" "pdx: $(host 3): Not a directory ($dest/src/sub and 1 more)" "failure (a file below DEST)"
expect_eq "$(cat "$(home_of 3)/$dest/src/sub")" "in the way" "host 3's file"
no_leftovers "$(home_of 3)/$dest"

clean_on_hosts 4 "$dest"
run_ssh -w "$hosts" push "$SCRATCH/missing" "$SCRATCH/src" "$dest/"
expect_usage_error
expect_contains "$err" "missing: No such file or directory"
for i in 1 2 3 4; do [[ ! -e $(home_of "$i")/$dest ]] || fail "host $i touched despite the usage error"; done
