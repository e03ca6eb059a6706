# What crosses the network on push's direct links (tests/lib/tcp_proxy.py between pdx and one
# host's agent, as no tcpdump may be installed): no plaintext (a file's known marker never shows
# in the capture), and a byte altered on the wire fails that host with one line naming it, nothing
# half-written at DEST.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
h=$(host 1)
dir="wire $TEST_NAME"
clean_on_hosts 1 "$dir"

# No plaintext: a marker in a file pushed star is nowhere in what went over the link.
mkdir -p "$SCRATCH/src"
marker="PDX-MARKER-$RANDOM-$RANDOM-cleartext"
for _ in $(seq 2000); do echo "$marker"; done > "$SCRATCH/src/marked"
head -c 1000000 /dev/urandom >> "$SCRATCH/src/marked"
direct_proxy "$h" --capture "$SCRATCH/capture"
PDX_TEST_DIRECT_VIA=127.0.0.1:$proxy_port run_ssh -w "$h" push --data-via direct --relay-ports "$agent_port" "$SCRATCH/src" "$dir/"
expect_status 0
expect_eq "$err" "" "no warning"
cmp "$SCRATCH/src/marked" "$(home_of 1)/$dir/src/marked" || fail "the marked file differs"
size=$(stat -c %s "$SCRATCH/capture" 2> /dev/null || echo 0)
((size > 1000000)) || fail "the capture holds $size bytes: the data did not go through the proxy"
! grep -q "$marker" "$SCRATCH/capture" || fail "the marker went over the link in clear"
! grep -q "marked" "$SCRATCH/capture" || fail "a file's name went over the link in clear"

# The host's last word on the link ("passed on") coming after its command's end has come over
# ssh (a slow data path): the link is not cut under it, the push succeeds.
direct_proxy "$h" --delay-back 1
PDX_TEST_DIRECT_VIA=127.0.0.1:$proxy_port run_ssh -w "$h" push --data-via direct --relay-ports "$agent_port" "$SCRATCH/src" "$dir/late/"
expect_status 0
expect_eq "$err" "" "no warning (late)"
cmp "$SCRATCH/src/marked" "$(home_of 1)/$dir/late/src/marked" || fail "the late link's file differs"

# A byte altered 2 MB into the stream: the host fails, naming it, with one line; the file it was
# writing is not left behind, half or whole, nor any temporary.
head -c 8000000 /dev/urandom > "$SCRATCH/big"
direct_proxy "$h" --flip 2000000
PDX_TEST_DIRECT_VIA=127.0.0.1:$proxy_port run_ssh -w "$h" push --relay-ports "$agent_port" "$SCRATCH/big" "$dir/flipped/"
expect_status 1
expect_lines "$err" 1 "one line"
expect_contains "$err" "pdx: $h: " "the host named"
expect_contains "$err" "failed its check" "why"
[[ ! -e $(home_of 1)/$dir/flipped/big ]] || fail "the file was written"
no_leftovers "$(home_of 1)/$dir"
true
