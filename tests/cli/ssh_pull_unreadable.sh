# pdx pull of a tree holding a file and a directory the host cannot read: over a direct link as
# over ssh (the host's GNU tar), they are left out, named, the rest of the tree pulled whole,
# and the pull exits 1.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
h1=$(host 1)
dir="pulled $TEST_NAME"
clean_on_hosts 1 "$dir"
tree="$(home_of 1)/$dir/tree"
mkdir -p "$tree/locked dir" "$tree/sub"
head -c 2000000 /dev/urandom > "$tree/a before"
printf 'secret\n' > "$tree/secret"
printf 'inside\n' > "$tree/locked dir/inside"
head -c 2000000 /dev/urandom > "$tree/sub/z after"
chown -R --reference="$(home_of 1)" "$(home_of 1)/$dir"
chmod 0 "$tree/secret" "$tree/locked dir"
at_exit "chmod 0700 '$tree/locked dir'"
# listing DIR: every entry's name, type and size.
listing() { (cd "$1" && find . -mindepth 1 -printf '%p %y %s\n' | LC_ALL=C sort); }

for via in ssh direct; do
  run_ssh -w "$h1" pull --data-via "$via" "$dir/tree" "$SCRATCH/$via"
  expect_status 1
  expect_lines "$err" 1 "over $via: one line"
  expect_contains "$err" "pdx: $h1: " "over $via: the host named"
  expect_contains "$err" "Permission denied" "over $via: why"
  for name in "a before" "sub/z after"; do
    cmp "$tree/$name" "$SCRATCH/$via/$h1/tree/$name" || fail "over $via: $name differs"
  done
  [[ ! -e $SCRATCH/$via/$h1/tree/secret ]] || fail "over $via: the file it could not read is there"
  no_leftovers "$SCRATCH/$via"
done
expect_eq "$(listing "$SCRATCH/direct/$h1")" "$(listing "$SCRATCH/ssh/$h1")" "the same entries both ways"
