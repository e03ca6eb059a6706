# scripts/netns-cluster.sh, which the link benchmarks (and the relay's tests) stand on: hosts in
# network namespaces of their own, reached from the client's namespace over 198.18.0.0/15 only,
# each host able to reach the others (a push --relay links up between them), and nothing left
# behind by stop.
source "$(dirname "$0")/../lib/netns_common.sh"

netns_start 3 100mbit
expect_eq "$(cat "$dir/hostfile")" "$(printf '198.18.0.1\n198.18.0.2\n198.18.0.3')" "hostfile"
out=$("$cluster" run "$dir" "$PDX" -F "$dir/ssh_config" -w "^$dir/hostfile" 'echo $SSH_CONNECTION' 2>&1)
expect_eq "$(sort <<< "$out" | awk '{print $1, $2, $4, $5}')" \
  "$(printf '198.18.0.1: 198.18.1.1 198.18.0.1 2222\n198.18.0.2: 198.18.1.1 198.18.0.2 2222\n198.18.0.3: 198.18.1.1 198.18.0.3 2222')" \
  "every host reached from the client's address"
"$cluster" host "$dir" 2 bash -c 'exec 3<>/dev/tcp/198.18.0.3/2222 && head -c 4 <&3' | grep -q SSH- ||
  fail "host 2 cannot reach host 3"
"$cluster" run "$dir" ip route | grep -qv 198.18 && fail "the client's namespace routes elsewhere"
"$cluster" run "$dir" tc qdisc show dev eth0 | grep -q "rate 100Mbit" || fail "the client's link is not shaped"

# A relayed push over the shaped links: each host's agent listens on its own namespace's address
# and the next host reaches it there (no warning: the chain linked up, nothing went as a star).
head -c 3000000 /dev/urandom > "$SCRATCH/data"
chmod -R a+rX "$SCRATCH/data"
dest=pdx-test-netns-$$
out=$("$cluster" run "$dir" "$PDX" -F "$dir/ssh_config" -w "^$dir/hostfile" push --relay "$SCRATCH/data" "$dest/" 2>&1)
expect_eq "$out" "pdx: 198.18.0.[1-3]: 2.9 MiB in 1 file" "relayed push"
sums=$("$cluster" run "$dir" "$PDX" -F "$dir/ssh_config" -w "^$dir/hostfile" "sha256sum < $dest/data; rm -rf $dest" 2>&1 | awk '{print $2}' | sort -u)
expect_eq "$sums" "$(sha256sum < "$SCRATCH/data" | awk '{print $1}')" "every host's copy"

"$cluster" stop "$dir"
ip netns list | grep -q "^px$(echo -n "$dir" | md5sum | cut -c1-6)-" && fail "a namespace left"
[[ -z $(ls "$dir"/sshd.*.pid 2> /dev/null) ]] || fail "an sshd pid file left"
true
