# pdx push --relay over real, rate-limited links (scripts/netns-cluster.sh: 5 hosts in network
# namespaces of their own, every link 100 Mbit/s) with the third host's agent killed at about a
# third of the transfer: the second host bridges to the fourth, which resumes from the offset it
# holds; the killed host alone fails, on one line, the second says it bridged in a warning, and
# the other four have the file whole. The links are slow enough that a sender waits on them all
# along: none of that is taken for a stall.
source "$(dirname "$0")/../lib/netns_common.sh"
netns_start 5 100mbit

size=$((24 * 1000 * 1000))
head -c "$size" /dev/urandom > "$SCRATCH/data"
chmod -R a+rX "$SCRATCH/data"
dest=pdx-test-bridge-$$
run_killing $((size * 2 / 3)) -u pdx003 -f -- "--relay=.*$dest" \
  --run "$cluster" run "$dir" "$PDX" -F "$dir/ssh_config" -w "^$dir/hostfile" push --relay "$SCRATCH/data" "$dest/"
expect_status 1
expect_contains "$err" "pdx: 198.18.0.3: killed by signal KILL" "the killed host, alone, on one line"
expect_bridged "$err" 198.18.0.2
expect_lines "$err" 2 "the killed host and the second's warning"
expect_eq "$out" "pdx: 198.18.0.[1-2,4-5]: 22.9 MiB in 1 file" "the others complete"
sums=$("$cluster" run "$dir" "$PDX" -F "$dir/ssh_config" -w "^$dir/hostfile" -x 198.18.0.3 \
  "sha256sum < $dest/data" 2>&1 | awk '{print $2}' | sort | uniq -c | awk '{print $1, $2}')
expect_eq "$sums" "4 $(sha256sum < "$SCRATCH/data" | awk '{print $1}')" "the four others' copies"
"$cluster" run "$dir" "$PDX" -F "$dir/ssh_config" -w "^$dir/hostfile" "rm -rf $dest" > /dev/null 2>&1
true
