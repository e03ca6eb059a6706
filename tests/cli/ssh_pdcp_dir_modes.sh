# pdcp -r (and push) over ssh keep a tree as rsync -a does: a 700 directory stays 700 on the hosts
# (the real pdcp keeps it; 755 would expose it), a 750 one 750, directories' mtimes are the
# source's (set after their contents), symlinks arrive as symlinks; a directory already on a host
# gets its mode set too; a re-run is up to date.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
mkdir -p "$SCRATCH/bin" && ln -s "$PDX" "$SCRATCH/bin/pdcp"
export PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS="-F $CONFIG -x -a %h"
dir=$TEST_NAME-$$
clean_on_hosts 2 "$dir"
hosts="$(host 1),$(host 2)"
src=$SCRATCH/tree
mkdir -p "$src/private/inner" "$src/group" "$src/open"
echo secret > "$src/private/inner/key"
echo shared > "$src/group/notes"
ln -s private/inner/key "$src/open/key-link"
chmod 700 "$src/private"
chmod 750 "$src/group"
chmod 711 "$src/private/inner"
touch -d '2002-03-04 05:06:07' "$src/private/inner" "$src/group"
touch -d '2003-04-05 06:07:08' "$src/private" "$src"

# stats DIR: each directory's and symlink's mode and mtime (seconds), as stat says.
stats() { (cd "$1" && find . \( -type d -o -type l \) -printf '%p %y %m %TY-%Tm-%Td %TH:%TM:%.2TS\n' | sort); }

run_ssh -w "$hosts" "mkdir -p $dir"
"$SCRATCH/bin/pdcp" -w "$hosts" -r "$src" "$dir" < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
status=$?
err=$(cat "$SCRATCH/stderr")
expect_status 0
expect_eq "$err" "" "pdcp is silent"
for i in 1 2; do
  expect_eq "$(stat -c %a "$(home_of "$i")/$dir/tree/private")" "700" "host $i: the 700 directory"
  expect_eq "$(stats "$(home_of "$i")/$dir/tree")" "$(stats "$src")" "host $i: modes and mtimes"
  expect_eq "$(readlink "$(home_of "$i")/$dir/tree/open/key-link")" "private/inner/key" "host $i: symlink"
done

# The same through push, and again: up to date. A directory that is 755 on a host becomes 700.
run_ssh -w "$hosts" push "$src" "$dir/"
expect_status 0
expect_eq "$out" "pdx: $("$PDX" hosts --fold -w "$hosts"): up to date" "re-run"
chmod 755 "$(home_of 2)/$dir/tree/private"
run_ssh -w "$hosts" push "$src" "$dir/"
expect_status 0
expect_eq "$(stat -c %a "$(home_of 2)/$dir/tree/private")" "700" "host 2: mode set again"
expect_eq "$(stats "$(home_of 2)/$dir/tree")" "$(stats "$src")" "host 2: modes and mtimes after"
run_ssh -w "$hosts" push "$src" "$dir/"
expect_eq "$out" "pdx: $("$PDX" hosts --fold -w "$hosts"): up to date" "re-run after"
