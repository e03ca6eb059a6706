# pdx sync runs each host's steps (signatures, listing, patch, whole files, deletions) on one
# ssh session per host: one TCP connection to each host's sshd (counted by strace), however many
# steps; the result as before.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
command -v strace > /dev/null || skip "needs strace to count the connections"
n=$(( CLUSTER_SIZE < 3 ? CLUSTER_SIZE : 3 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
clean_on_hosts "$n" syncs
mkdir -p "$SCRATCH/src"
head -c 300000 /dev/urandom > "$SCRATCH/src/big"
printf 'small\n' > "$SCRATCH/src/small"
run_ssh -w "$hosts" sync "$SCRATCH/src" 'syncs/%h/'
expect_status 0

printf 'EDIT' | dd of="$SCRATCH/src/big" bs=1 seek=1000 conv=notrunc status=none
touch -d '2003-01-01' "$SCRATCH/src/big"
printf 'new\n' > "$SCRATCH/src/new"
for i in $(seq "$n"); do
  d=$(home_of "$i")/syncs/$(host "$i")/src
  printf 'extra\n' > "$d/extra"
  mkdir -p "$d/cache" && printf 'kept\n' > "$d/cache/c"
done
strace -f -qq -e trace=connect -o "$SCRATCH/strace" \
  "$PDX" -F "$CONFIG" -w "$hosts" sync --delete --exclude cache/ "$SCRATCH/src" 'syncs/%h/' \
  > "$SCRATCH/out" 2> "$SCRATCH/err" < /dev/null
status=$?
out=$(cat "$SCRATCH/out") err=$(cat "$SCRATCH/err")
expect_status 0
expect_contains "$out" "1 file patched" "patched"
expect_contains "$out" "1 file sent whole (4 B), 1 deleted" "sent whole and deleted"
expect_eq "$err" "" "nothing on stderr"
connects=$(grep -c "htons($CLUSTER_PORT)" "$SCRATCH/strace")
expect_eq "$connects" "$n" "ssh connections for $n hosts"
for i in $(seq "$n"); do
  d=$(home_of "$i")/syncs/$(host "$i")/src
  for f in big small new; do cmp "$SCRATCH/src/$f" "$d/$f" || fail "host $i: $f"; done
  [[ ! -e $d/extra && -f $d/cache/c ]] || fail "host $i: extra not deleted, or cache/ not kept"
done
