# pdx sync over ssh keeps a tree as rsync -a does: symlinks sent as symlinks (a hub cache's links
# into its blobs, `latest -> v3`, a dangling one), a changed target replaced, a 700 directory kept
# 700 and directories' mtimes kept, --safe-links leaving out an absolute symlink with a warning;
# a re-run (also after --delete removed an extra) is up to date. verify lists the symlinks: a
# host whose `latest` points elsewhere, or is a file, differs; one with an extra symlink too.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
(( CLUSTER_SIZE >= 3 )) || skip "needs 3 hosts"
hosts=$(head -n 3 "$HOSTFILE" | paste -sd,)
dir=$TEST_NAME-$$
clean_on_hosts 3 "$dir"
src=$SCRATCH/src
mkdir -p "$src/blobs" "$src/snapshots/r1" "$src/v2" "$src/v3" "$src/private"
printf 'weights\n' > "$src/blobs/aaaa"
ln -s ../../blobs/aaaa "$src/snapshots/r1/model.bin"
printf 'two\n' > "$src/v2/x"
printf 'three\n' > "$src/v3/x"
ln -s v3 "$src/latest"
ln -s nowhere "$src/dangling"
ln -s /etc/hostname "$src/absolute"
echo key > "$src/private/key"
chmod 700 "$src/private"
touch -d '2004-05-06 07:08:09' "$src/v3" "$src/private"

links() { (cd "$1" && find . -type l -printf '%P -> %l\n' | sort); }
stats() { (cd "$1" && find . -type d -printf '%p %m %TY-%Tm-%Td %TH:%TM:%.2TS\n' | sort); }
dest() { echo "$(home_of "$1")/$dir/src"; }

run_ssh -w "$hosts" sync "$src" "$dir/"
expect_status 0
for i in 1 2 3; do
  expect_eq "$(links "$(dest "$i")")" "$(links "$src")" "host $i: links"
  expect_eq "$(stats "$(dest "$i")")" "$(stats "$src")" "host $i: directories' modes and mtimes"
done
run_ssh -w "$hosts" sync "$src" "$dir/"
expect_status 0
expect_eq "$out" "pdx: $("$PDX" hosts --fold -w "$hosts"): up to date" "re-run"

run_pdx verify -F "$CONFIG" -w "$hosts" "$dir/src" --against "$src"
expect_status 0
expect_contains "$err" "match: 4 files, 4 symlinks"
run_pdx verify -F "$CONFIG" -w "$hosts" "$dir/src" --against "$src" --no-agent
expect_status 0
expect_contains "$err" "match: 4 files, 4 symlinks" "by the hosts' find"

# The target changes here; on the hosts, one `latest` points elsewhere, one is a file, one has an
# extra symlink: verify says so, sync mends it, --delete removes the extra.
ln -sfn "$(dest 1)/../outside" "$(dest 1)/latest"
rm "$(dest 2)/latest" && echo file > "$(dest 2)/latest"
ln -s v2 "$(dest 3)/extra-link"
for i in 1 2 3; do chown -hR --reference="$(dest "$i")" "$(dest "$i")"; done
run_pdx verify -F "$CONFIG" -w "$hosts" "$dir/src" --against "$src"
expect_status 1
expect_contains "$err" "$("$PDX" hosts --fold -w "$(host 1),$(host 2)"): differs: 1 changed (latest)"
expect_contains "$err" "$(host 3): differs: 1 extra (extra-link)"
run_pdx verify -F "$CONFIG" -w "$hosts" "$dir/src" --against "$src" --no-agent
expect_contains "$err" "$("$PDX" hosts --fold -w "$(host 1),$(host 2)"): differs: 1 changed (latest)" "by find"

ln -sfn v2 "$src/latest"
run_ssh -w "$hosts" sync --delete "$src" "$dir/"
expect_status 0
for i in 1 2 3; do
  expect_eq "$(links "$(dest "$i")")" "$(links "$src")" "host $i: links after"
  expect_eq "$(stats "$(dest "$i")")" "$(stats "$src")" "host $i: directories after"
done
run_ssh -w "$hosts" sync --delete "$src" "$dir/"
expect_eq "$out" "pdx: $("$PDX" hosts --fold -w "$hosts"): up to date" "re-run after --delete"

# --safe-links: the absolute symlink is left out, named; --delete keeps the hosts' one.
run_ssh -w "$hosts" sync --safe-links --delete "$src" "$dir/"
expect_status 0
expect_eq "$err" "pdx: warning: $src/absolute -> /etc/hostname: symlink out of its source, not sent (--safe-links)" "the warning"
expect_eq "$(readlink "$(dest 1)/absolute")" "/etc/hostname" "kept by --delete"
run_ssh -w "$(host 1)" sync --safe-links "$src" "${dir}-safe/"
expect_eq "$(links "$(home_of 1)/${dir}-safe/src")" "$(links "$src" | grep -v absolute)" "only the safe links"
rm -rf "$(home_of 1)/${dir}-safe"
