# pdx push --extract again: a host that holds the set unpacked, unchanged since (the agent's record
# checked against its files), is up to date and is sent nothing; a host where one unpacked file
# was changed or removed unpacks the set again, alone; another set to the same DEST unpacks.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 4 ? CLUSTER_SIZE : 4 ))
(( n >= 4 )) || skip "needs 4 hosts"
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
dest=$TEST_NAME
clean_extracted_on_hosts "$n" "$dest"
make_tree "$SCRATCH/src"
(cd "$SCRATCH" && "$PDX" pack src -o data.tar.zst --split 1M) > /dev/null || fail "pack failed"
parts=("$SCRATCH"/data.tar.zst.part-*)
h1=$(host 1); h2=$(host 2); h3=$(host 3); h4=$(host 4)

# Each host's unpacked entries: name, inode, mtime to the nanosecond, ctime (rewritten or
# touched, they change).
state() { (cd "$(home_of "$1")/$dest" && find . -printf '%P %i %T@ %C@\n' | sort); }

run_ssh -w "$hosts" push --extract "${parts[@]}" "$dest"
expect_status 0
expect_contains "$out" ": 3.0 MiB in 8 files"
for i in $(seq "$n"); do same_tree "$SCRATCH/src" "$(home_of "$i")/$dest/src"; done
before=$(for i in $(seq "$n"); do state "$i"; done)

# Again: every host up to date, nothing sent, nothing rewritten.
run_ssh -w "$hosts" push --extract --json "${parts[@]}" "$dest"
expect_status 0
for h in "$h1" "$h2" "$h3" "$h4"; do
  expect_contains "$out" "\"host\":\"$h\",\"status\":0" "$h's line"
done
[[ $(grep -c '"up_to_date":true' <<< "$out") -eq 4 ]] || fail "not every host up to date: $out"
[[ $(grep -c '"bytes":0,' <<< "$out") -eq 4 ]] || fail "something was sent: $out"
[[ $(for i in $(seq "$n"); do state "$i"; done) == "$before" ]] || fail "files were rewritten"
run_ssh -w "$hosts" push --extract "${parts[@]}" "$dest/"
expect_status 0
[[ $out == *": up to date" && $(wc -l <<< "$out") -eq 1 ]] || fail "not one up-to-date line: $out"

# A file rewritten on host 2 (same size, its mtime put back), one removed on host 3: those two
# unpack again, the others stay as they are.
big2=$(home_of 2)/$dest/src/sub\ dir/deeper/big
mtime=$(stat -c %y "$big2")
printf 'X' | dd of="$big2" bs=1 seek=100 conv=notrunc status=none
touch -d "$mtime" "$big2"
rm "$(home_of 3)/$dest/src/plain"
before1=$(state 1); before4=$(state 4)
run_ssh -w "$hosts" push --extract "${parts[@]}" "$dest"
expect_status 0
expect_contains "$out" ": 3.0 MiB in 8 files"
expect_contains "$out" ": up to date"
[[ $(grep -c '3.0 MiB in 8 files' <<< "$out") -eq 1 ]] || fail "not one line for the two hosts: $out"
for i in 2 3; do same_tree "$SCRATCH/src" "$(home_of "$i")/$dest/src"; done
[[ $(state 1) == "$before1" && $(state 4) == "$before4" ]] || fail "hosts 1 and 4 were rewritten"
run_ssh -w "$hosts" push --extract "${parts[@]}" "$dest"
expect_status 0
[[ $out == *": up to date" && $(wc -l <<< "$out") -eq 1 ]] || fail "not all up to date: $out"

# Another set (packed again: another pack id) to the same DEST: every host unpacks it.
echo more > "$SCRATCH/src/more"
rm "$SCRATCH"/data.tar.zst.part-*
(cd "$SCRATCH" && "$PDX" pack src -o data.tar.zst --split 1M) > /dev/null || fail "pack failed"
run_ssh -w "$hosts" push --extract "$SCRATCH"/data.tar.zst.part-* "$dest"
expect_status 0
[[ $out == *": 3.0 MiB in 9 files" && $(wc -l <<< "$out") -eq 1 ]] || fail "not all unpacked: $out"
for i in $(seq "$n"); do same_tree "$SCRATCH/src" "$(home_of "$i")/$dest/src"; done
