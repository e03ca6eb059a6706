# pdx sync --exclude over ssh: rsync's basic rules (a name at any depth, '/' anchored at the
# transfer root, a trailing '/' for directories only); an excluded directory is not sent nor
# anything in it; with --delete, the hosts' excluded names stay, and so does a directory that
# holds one (and --dry-run does not list them); a bad pattern is a usage error, before any
# host is touched.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 2 ? CLUSTER_SIZE : 2 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
clean_on_hosts "$n" syncx
mkdir -p "$SCRATCH/src/sub/cache" "$SCRATCH/src/cache" "$SCRATCH/src/build" "$SCRATCH/src/sub/build"
# sub/build/cache is a file: 'cache/' is for directories only.
for f in a.txt b.o sub/c.o sub/d sub/cache/e cache/f build/g sub/build/h sub/build/cache; do
  printf '%s\n' "$f" > "$SCRATCH/src/$f"
done
folded=$("$PDX" hosts --fold -w "$hosts")

run_ssh -w "$hosts" sync --exclude '*.o' --exclude 'cache/' --exclude /src/build "$SCRATCH/src" 'syncx/%h/'
expect_status 0
expect_contains "$out" "4 files sent whole" "what was sent"
for i in $(seq "$n"); do
  d=$(home_of "$i")/syncx/$(host "$i")/src
  got=$(cd "$d" && find . | sort | paste -sd' ')
  expect_eq "$got" ". ./a.txt ./sub ./sub/build ./sub/build/cache ./sub/build/h ./sub/d" "host $i's tree"
done

# The hosts' own excluded files, and a directory of the hosts' holding one, stay with --delete.
for i in $(seq "$n"); do
  d=$(home_of "$i")/syncx/$(host "$i")/src
  printf 'host object\n' > "$d/b.o"
  mkdir -p "$d/old/cache" "$d/gone"
  printf 'x\n' > "$d/old/keep.o"
  printf 'x\n' > "$d/old/cache/y"
  printf 'x\n' > "$d/old/drop"
  printf 'x\n' > "$d/gone/z"
  chown -R --reference="$d" "$d"  # as root: the host's account's, as its own files are
done
run_ssh -w "$hosts" sync -n --delete --exclude '*.o' --exclude 'cache/' --exclude /src/build "$SCRATCH/src" 'syncx/%h/'
expect_status 0
expect_eq "$out" "pdx: $folded: would delete src/old/drop
pdx: $folded: would delete src/gone/z
pdx: $folded: would delete src/gone/" "the dry run"
run_ssh -w "$hosts" sync --delete --exclude '*.o' --exclude 'cache/' --exclude /src/build "$SCRATCH/src" 'syncx/%h/'
expect_status 0
expect_eq "$out" "pdx: $folded: 3 deleted"
for i in $(seq "$n"); do
  d=$(home_of "$i")/syncx/$(host "$i")/src
  got=$(cd "$d" && find . | sort | paste -sd' ')
  expect_eq "$got" ". ./a.txt ./b.o ./old ./old/cache ./old/cache/y ./old/keep.o ./sub ./sub/build ./sub/build/cache ./sub/build/h ./sub/d" "host $i's tree after --delete"
done

for bad in '' '/' '//'; do
  run_ssh -w "$hosts" sync --exclude "$bad" "$SCRATCH/src" 'syncx/%h/'
  expect_usage_error
  expect_contains "$err" "not a pattern"
done
