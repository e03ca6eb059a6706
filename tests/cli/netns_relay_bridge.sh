# pdx push --relay over real, rate-limited links (scripts/netns-cluster.sh: 5 hosts in network
# namespaces of their own, every link 100 Mbit/s) with the third host's agent killed at about a
# third of the transfer: the second host bridges to the fourth, which resumes from the offset it
# holds; the killed host alone fails, on one line, and the other four have the file whole. The
# links are slow enough that a sender waits on them all along: none of that is taken for a stall.
source "$(dirname "$0")/../lib/common.sh"
[[ $EUID -eq 0 ]] || { echo "SKIP [$TEST_NAME]: needs root"; exit 0; }
ip netns add "pdxprobe$$" 2> /dev/null || { echo "SKIP [$TEST_NAME]: no network namespaces here"; exit 0; }
ip netns del "pdxprobe$$"
cluster=$(dirname "$0")/../../scripts/netns-cluster.sh
dir=$SCRATCH/netns
chmod 0755 "$SCRATCH"  # sshd reads authorized_keys in it as each account
trap '"$cluster" stop "$dir"; rm -rf "$SCRATCH"' EXIT
"$cluster" start "$dir" 5 100mbit > "$SCRATCH/start.log" 2>&1 || fail "start: $(cat "$SCRATCH/start.log")"

size=$((24 * 1000 * 1000))
head -c "$size" /dev/urandom > "$SCRATCH/data"
chmod -R a+rX "$SCRATCH/data"
dest=pdx-test-bridge-$$
"$cluster" run "$dir" "$PDX" -F "$dir/ssh_config" -w "^$dir/hostfile" push --relay "$SCRATCH/data" "$dest/" \
  > "$SCRATCH/out" 2> "$SCRATCH/err" &
pdx_pid=$!
killed=""
while [[ -z $killed ]] && kill -0 "$pdx_pid" 2> /dev/null; do
  for pid in $(pgrep -u pdx003 -f -- "--relay=.*$dest"); do  # it reads each byte twice
    got=$(awk '$1 == "rchar:" {print $2}' "/proc/$pid/io" 2> /dev/null)
    (( ${got:-0} > size * 2 / 3 )) && kill -KILL "$pid" && killed=$pid
  done
  sleep 0.02
done
[[ -n $killed ]] || fail "no agent of the third host to kill"
wait "$pdx_pid"
status=$?
out=$(cat "$SCRATCH/out") err=$(cat "$SCRATCH/err")
expect_status 1
expect_eq "$err" "pdx: 198.18.0.3: killed by signal KILL" "the killed host, alone, on one line"
expect_eq "$out" "pdx: 198.18.0.[1-2,4-5]: 22.9 MiB in 1 file" "the others complete"
sums=$("$cluster" run "$dir" "$PDX" -F "$dir/ssh_config" -w "^$dir/hostfile" -x 198.18.0.3 \
  "sha256sum < $dest/data" 2>&1 | awk '{print $2}' | sort | uniq -c | awk '{print $1, $2}')
expect_eq "$sums" "4 $(sha256sum < "$SCRATCH/data" | awk '{print $1}')" "the four others' copies"
"$cluster" run "$dir" "$PDX" -F "$dir/ssh_config" -w "^$dir/hostfile" "rm -rf $dest" > /dev/null 2>&1
true
