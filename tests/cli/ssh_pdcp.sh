# pdx as pdcp and rpdcp over ssh, next to Debian's pdcp and rpdcp where they are installed: the
# same files land on the hosts (contents and modes), rpdcp's NAME.HOST names are the same, and
# rpdcp without -r refuses a remote directory on every host as the real one does.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/pdsh_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
REAL_PDCP=$(command -v /usr/bin/pdcp || true)
ln -s "$PDX" "$SCRATCH/bin/pdcp"
ln -s "$PDX" "$SCRATCH/bin/rpdcp"
export PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS="-F $CONFIG -x -a %h"

dir=pdx-test-pdcp-$$
hosts="$(host 1),$(host 2),$(host 3)"
at_exit "run_ssh -w '$hosts' 'rm -rf $dir'"
src=$SCRATCH/src
mkdir -p "$src/tree/a b" "$SCRATCH/back" "$SCRATCH/real_back"
echo one > "$src/file"
echo "it's deep" > "$src/tree/a b/x"
chmod -R a+rX "$SCRATCH"  # the real pdcp's remote side runs as the hosts' accounts
chmod 0750 "$src/file"

# run_copy NAME ARGS...: the tool NAME ($SCRATCH/bin's link, or the real one) with ARGS.
run_copy() {
  "$1" "${@:2}" < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
  status=$?
  err=$(cat "$SCRATCH/stderr")
}
# What a host holds under DIR/SUB: names, modes and contents.
holdings() {
  run_ssh -w "$(host "$1")" "cd $dir/$2 && find . -printf '%p %y %m\n' | sort && find . -type f | sort | xargs cat"
  echo "$out"
}

run_ssh -w "$hosts" "mkdir -p $dir/mine $dir/real"
run_copy "$SCRATCH/bin/pdcp" -w "$hosts" -r "$src/file" "$src/tree" "$dir/mine"
expect_status 0
expect_eq "$err" "" "pdcp is silent"
expect_contains "$(holdings 2 mine)" "./tree/a b/x f 644"
expect_contains "$(holdings 3 mine)" "./file f 750"
if [[ -n $REAL_PDCP ]]; then
  run_copy /usr/bin/pdcp -w "$hosts" -r "$src/file" "$src/tree" "$dir/real"
  expect_status 0
  for n in 1 3; do expect_eq "$(holdings "$n" mine)" "$(holdings "$n" real)" "host $n: as the real pdcp"; done
fi

# rpdcp: NAME.HOST in DIR, with -r for trees.
run_copy "$SCRATCH/bin/rpdcp" -w "$hosts" -r "$dir/mine/file" "$dir/mine/tree" "$SCRATCH/back"
expect_status 0
expect_eq "$err" "" "rpdcp is silent"
expect_eq "$(cat "$SCRATCH/back/tree.$(host 2)/a b/x")" "it's deep" "host 2's tree"
if [[ -n $REAL_PDCP ]]; then
  run_copy /usr/bin/rpdcp -w "$hosts" -r "$dir/mine/file" "$dir/mine/tree" "$SCRATCH/real_back"
  expect_status 0
  expect_eq "$(cd "$SCRATCH/back" && find . -printf '%p %y %m\n' | sort)" \
    "$(cd "$SCRATCH/real_back" && find . -printf '%p %y %m\n' | sort)" "as the real rpdcp"
fi

# rpdcp without -r: a remote directory is refused on every host, nothing is written.
rm -rf "$SCRATCH/back"/*
run_copy "$SCRATCH/bin/rpdcp" -w "$hosts" "$dir/mine/file" "$dir/mine/tree" "$SCRATCH/back"
expect_status 1
expect_contains "$err" "use -r to copy directories: $dir/mine/tree"
expect_contains "$err" "127.0.0.[1-3]"
expect_eq "$(ls "$SCRATCH/back")" "" "nothing gathered"
true
