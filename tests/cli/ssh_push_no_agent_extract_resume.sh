# pdx push --no-agent --extract again: a host that holds the set unpacked as its own sh recorded it
# (a fingerprint of DEST's tree) is up to date and is sent nothing; a host where a file was
# changed, or one added, unpacks the set again, alone; another set to the same DEST unpacks.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 3 ? CLUSTER_SIZE : 3 ))
(( n >= 3 )) || skip "needs 3 hosts"
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
dest=$TEST_NAME
clean_extracted_on_hosts "$n" "$dest"
make_tree "$SCRATCH/src"
(cd "$SCRATCH" && "$PDX" pack src -o data.tar.gz --split 1M) > /dev/null || fail "pack failed"
parts=("$SCRATCH"/data.tar.gz.part-*)
state() { (cd "$(home_of "$1")/$dest" && find . -printf '%P %i %T@ %C@\n' | sort); }

run_ssh -w "$hosts" push --no-agent --extract "${parts[@]}" "$dest"
expect_status 0
for i in $(seq "$n"); do same_tree "$SCRATCH/src" "$(home_of "$i")/$dest/src"; done
before=$(for i in $(seq "$n"); do state "$i"; done)

run_ssh -w "$hosts" push --no-agent --extract --json "${parts[@]}" "$dest"
expect_status 0
[[ $(grep -c '"up_to_date":true' <<< "$out") -eq "$n" ]] || fail "not every host up to date: $out"
[[ $(grep -c '"bytes":0,' <<< "$out") -eq "$n" ]] || fail "something was sent: $out"
[[ $(for i in $(seq "$n"); do state "$i"; done) == "$before" ]] || fail "files were rewritten"

# A file rewritten on host 2 (same size, its mtime put back), a file added on host 3: those two
# unpack again, host 1 stays as it is.
big2=$(home_of 2)/$dest/src/sub\ dir/deeper/big
mtime=$(stat -c %y "$big2")
printf 'X' | dd of="$big2" bs=1 seek=100 conv=notrunc status=none
touch -d "$mtime" "$big2"
echo extra > "$(home_of 3)/$dest/extra"
before1=$(state 1)
run_ssh -w "$hosts" push --no-agent --extract "${parts[@]}" "$dest"
expect_status 0
expect_contains "$out" "$(host 1): up to date"
[[ $(grep -c 'up to date' <<< "$out") -eq 1 ]] || fail "hosts 2 and 3 not sent the set: $out"
for i in 2 3; do same_tree "$SCRATCH/src" "$(home_of "$i")/$dest/src"; done
[[ $(state 1) == "$before1" ]] || fail "host 1 was rewritten"
run_ssh -w "$hosts" push --no-agent --extract "${parts[@]}" "$dest"
expect_status 0
[[ $out == *": up to date" && $(wc -l <<< "$out") -eq 1 ]] || fail "not all up to date: $out"

# Another set to the same DEST: every host unpacks it.
echo more > "$SCRATCH/src/more"
rm "$SCRATCH"/data.tar.gz.part-*
(cd "$SCRATCH" && "$PDX" pack src -o data.tar.gz --split 1M) > /dev/null || fail "pack failed"
run_ssh -w "$hosts" push --no-agent --extract "$SCRATCH"/data.tar.gz.part-* "$dest"
expect_status 0
[[ $out != *"up to date"* ]] || fail "a host kept the old set: $out"
for i in $(seq "$n"); do same_tree "$SCRATCH/src" "$(home_of "$i")/$dest/src"; done
true
