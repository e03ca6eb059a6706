# pdx push --checksum over ssh: files compared by content (rsync -c), not by size and mtime. A
# file changed on a host with its size and mtime kept is re-sent only with --checksum; a file
# whose mtime was touched but whose bytes are the same is not re-sent with --checksum.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=4
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
clean_on_hosts "$n" summed
mkdir "$SCRATCH/src"
printf 'aaaa\n' > "$SCRATCH/src/a"
printf 'bbbb\n' > "$SCRATCH/src/b"
head -c 2097152 /dev/urandom > "$SCRATCH/src/big"

run_ssh -w "$hosts" push "$SCRATCH/src" summed/
expect_status 0
expect_contains "$out" "in 3 files"

# Host 1's a: other bytes, the same size and mtime.
changed=$(home_of 1)/summed/src/a
printf 'AAAA\n' > "$changed"
touch -r "$SCRATCH/src/a" "$changed"

run_ssh -w "$hosts" push "$SCRATCH/src" summed/
expect_status 0
expect_contains "$out" ": up to date"
expect_lines "$out" 1 "without --checksum"
expect_eq "$(cat "$changed")" "AAAA" "host 1's a without --checksum"

run_ssh -w "$hosts" push --checksum "$SCRATCH/src" summed/
expect_status 0
expect_contains "$out" "pdx: $(host 1): 5 B in 1 file"
expect_contains "$out" ": up to date"
expect_lines "$out" 2 "with --checksum"
same_tree "$SCRATCH/src" "$(home_of 1)/summed/src"

# b touched on every host: the same bytes, another mtime. Not re-sent; its mtime is left.
for i in $(seq "$n"); do touch -d '2002-02-02 02:02:02' "$(home_of "$i")/summed/src/b"; done
run_ssh -w "$hosts" push --checksum "$SCRATCH/src" summed/
expect_status 0
expect_contains "$out" ": up to date"
expect_lines "$out" 1 "touched, with --checksum"
expect_eq "$(date -r "$(home_of 1)/summed/src/b" +%Y)" 2002 "host 1's b mtime"
