# pdx sync over ssh: a 20 MiB file on 4 hosts, edited here in a few places, is made
# byte-identical everywhere from a delta of a few blocks (the bytes pdx reports sent, checked
# against the file's size); a sync killed mid-way leaves every host's file old or new, never
# partial under its name, and no temporary behind; the re-run completes.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 4 ? CLUSTER_SIZE : 4 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
clean_on_hosts "$n" syncd
mkdir "$SCRATCH/src"
head -c 20971520 /dev/urandom > "$SCRATCH/src/big"
printf 'small\n' > "$SCRATCH/src/small"

run_ssh -w "$hosts" sync "$SCRATCH/src" 'syncd/'
expect_status 0
expect_contains "$out" "2 files sent whole (20.0 MiB)" "first sync"

for at in 1000 7000000 15000000 20000000; do
  printf 'EDITED HERE' | dd of="$SCRATCH/src/big" bs=1 seek=$at conv=notrunc status=none
done
touch -d '2003-01-01' "$SCRATCH/src/big"
run_ssh -w "$hosts" sync "$SCRATCH/src" 'syncd/'
expect_status 0
[[ $out =~ ^pdx:\ [^:]+:\ 1\ file\ patched\ \(20\.0\ MiB,\ ([0-9.]+)\ KiB\ sent\)$ ]] ||
  fail "not one folded patched line: $out"
sent=${BASH_REMATCH[1]%.*}
(( sent < 100 )) || fail "a delta of $sent KiB for 4 edits of 11 bytes in 20 MiB"
for i in $(seq "$n"); do
  cmp "$SCRATCH/src/big" "$(home_of "$i")/syncd/src/big" || fail "host $i: not byte-identical"
  same_tree "$SCRATCH/src" "$(home_of "$i")/syncd/src"
done

run_ssh -w "$hosts" sync "$SCRATCH/src" 'syncd/'
expect_status 0
[[ $out =~ ^pdx:\ [^:]+:\ up\ to\ date$ ]] || fail "not up to date everywhere: $out"

# Killed: a new version of 64 MiB that shares nothing with the old one.
cp "$SCRATCH/src/big" "$SCRATCH/old"
head -c 67108864 /dev/urandom > "$SCRATCH/src/big"
"$PDX" -F "$CONFIG" -w "$hosts" sync "$SCRATCH/src" 'syncd/' > /dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do pgrep -f 'agent --patch=syncd/' > /dev/null && break; sleep 0.02; done
sleep 0.2
kill -KILL "$pid"
wait "$pid" 2> /dev/null
for _ in $(seq 100); do pgrep -f 'agent --patch=syncd/' > /dev/null || break; sleep 0.1; done
for i in $(seq "$n"); do
  f=$(home_of "$i")/syncd/src/big
  cmp -s "$SCRATCH/old" "$f" || cmp -s "$SCRATCH/src/big" "$f" || fail "host $i: a partial file under its name"
  no_leftovers "$(home_of "$i")/syncd"
done
run_ssh -w "$hosts" sync "$SCRATCH/src" 'syncd/'
expect_status 0
for i in $(seq "$n"); do cmp "$SCRATCH/src/big" "$(home_of "$i")/syncd/src/big" || fail "host $i: not synced after the kill"; done
