# Hosts that cannot be reached: a refused port fails at once, a listener that accepts and never
# answers ends at the connect timeout (-t); both count as 255 and are named in the summary,
# and the reachable hosts still run.
source "$(dirname "$0")/../lib/ssh_common.sh"

dead=127.0.0.254  # in the loopback range, outside any cluster of up to 250 hosts: refused
start=$(date +%s)
run_ssh -t 5 -w "$(host 1),$dead" 'echo up'
expect_status 255
expect_eq "$out" "$(host 1): up"
expect_contains "$err" "pdx: $dead: connect to port $CLUSTER_PORT: Connection refused" "summary"
(( $(date +%s) - start < 5 )) || fail "a refused port took as long as the timeout"

# A hung host: accepts the connection, never sends a banner.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
print(s.getsockname()[1], flush=True)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
' > "$SCRATCH/port" &
listener=$!
trap 'kill $listener 2>/dev/null; rm -rf "$SCRATCH"' EXIT
for _ in $(seq 50); do [[ -s $SCRATCH/port ]] && break; sleep 0.1; done
start_ms=$(( $(date +%s%N) / 1000000 ))
run_ssh -t 2 -w "$(host 1),127.0.0.1:$(cat "$SCRATCH/port")" 'echo up'
elapsed_ms=$(( $(date +%s%N) / 1000000 - start_ms ))
expect_status 255
expect_eq "$out" "$(host 1): up"
expect_contains "$err" "pdx: 127.0.0.1:$(cat "$SCRATCH/port"): connect timed out after 2s" "summary"
(( elapsed_ms < 6000 )) || fail "a hung host took ${elapsed_ms} ms with -t 2"
(( elapsed_ms >= 1900 )) || fail "a hung host ended after ${elapsed_ms} ms, before -t 2"

# Without -t, ssh_config's ConnectTimeout is the deadline.
start_ms=$(( $(date +%s%N) / 1000000 ))
run_ssh -o ConnectTimeout=1 -w "127.0.0.1:$(cat "$SCRATCH/port")" 'echo up'
elapsed_ms=$(( $(date +%s%N) / 1000000 - start_ms ))
expect_status 255
expect_contains "$err" "connect timed out after 1s" "ConnectTimeout"
(( elapsed_ms < 5000 )) || fail "ConnectTimeout=1 took ${elapsed_ms} ms"
true
