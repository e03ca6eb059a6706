# pdx pull over direct links (tests/lib/tcp_proxy.py between pdx and one host's agent, as no
# tcpdump may be installed): the tree comes as the host's tar over ssh gives it (contents, names,
# symlinks, modes, mtimes); a marker in a pulled file never crosses the link in clear; a byte
# altered on the wire fails that host with one line naming it, nothing of its file placed; a host
# that cannot link is pulled over ssh, said once, or failed with --data-via direct.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (run as root)"
h1=$(host 1) h2=$(host 2)
dir="pulled $TEST_NAME"
clean_on_hosts 2 "$dir"
marker="PDX-MARKER-$RANDOM-$RANDOM-cleartext"
for i in 1 2; do
  make_tree "$(home_of "$i")/$dir/tree"
  ln -s "sub dir/deeper/big" "$(home_of "$i")/$dir/tree/link to big"
  ln -s /nowhere "$(home_of "$i")/$dir/tree/dangling"
  for _ in $(seq 2000); do echo "$marker"; done > "$(home_of "$i")/$dir/tree/marked"
  chmod 0640 "$(home_of "$i")/$dir/tree/marked"
  chmod 0750 "$(home_of "$i")/$dir/tree/sub dir"
  touch -h -d '2002-03-04 05:06:07' "$(home_of "$i")/$dir/tree/sub dir" "$(home_of "$i")/$dir/tree/dangling"
  chown -R --reference="$(home_of "$i")" "$(home_of "$i")/$dir"
done
# listing DIR: every entry's name, type, mode, size, mtime and target.
listing() { (cd "$1" && find . -mindepth 1 -printf '%p %y %m %s %T@ %l\n' | LC_ALL=C sort); }

# The same tree over ssh (the host's tar) and over the link: byte for byte, entry for entry.
run_ssh -w "$h1" pull --data-via ssh "$dir/tree" "$SCRATCH/over-ssh"
expect_status 0
direct_proxy "$h1" --capture "$SCRATCH/capture"
PDX_TEST_DIRECT_VIA=127.0.0.1:$proxy_port run_ssh -w "$h1" pull --data-via direct --relay-ports "$agent_port" "$dir/tree" "$SCRATCH/direct"
expect_status 0
expect_eq "$err" "pdx: $h1: pulled" "no warning"
diff -r --no-dereference "$SCRATCH/over-ssh/$h1" "$SCRATCH/direct/$h1" || fail "the trees differ"
expect_eq "$(listing "$SCRATCH/direct/$h1")" "$(listing "$SCRATCH/over-ssh/$h1")" "names, modes, mtimes"
expect_eq "$(readlink "$SCRATCH/direct/$h1/tree/link to big")" "sub dir/deeper/big" "a symlink"
expect_eq "$(stat -c %a "$SCRATCH/direct/$h1/tree/plain")" 751 "a mode"
cmp "$(home_of 1)/$dir/tree/sub dir/deeper/big" "$SCRATCH/direct/$h1/tree/sub dir/deeper/big" || fail "big differs"
size=$(stat -c %s "$SCRATCH/capture" 2> /dev/null || echo 0)
((size > 3000000)) || fail "the capture holds $size bytes: the data did not go through the proxy"
! grep -q "$marker" "$SCRATCH/capture" || fail "the marker went over the link in clear"
! grep -q "with space" "$SCRATCH/capture" || fail "a file's name went over the link in clear"

# Contents (a trailing /) and a single file, over the link, as over ssh.
run_ssh -w "$h1" pull --data-via ssh "$dir/tree/sub dir/" "$dir/tree/plain" "$SCRATCH/ssh2"
expect_status 0
run_ssh -w "$h1" pull --data-via direct "$dir/tree/sub dir/" "$dir/tree/plain" "$SCRATCH/direct2"
expect_status 0
expect_eq "$(listing "$SCRATCH/direct2/$h1")" "$(listing "$SCRATCH/ssh2/$h1")" "contents and a file"

# A byte altered 2 MB into what the agent sends: that host fails with one line naming it, the
# other is pulled; nothing of the file it was on is placed, nor any temporary left.
head -c 8000000 /dev/urandom > "$(home_of 1)/$dir/big"
cp "$(home_of 1)/$dir/big" "$(home_of 2)/$dir/big"
chown --reference="$(home_of 1)" "$(home_of 1)/$dir/big"
chown --reference="$(home_of 2)" "$(home_of 2)/$dir/big"
direct_proxy "$h1" --flip-back 2000000
PDX_TEST_DIRECT_VIA=127.0.0.1:$proxy_port run_ssh -w "$h1" pull --relay-ports "$agent_port" "$dir/big" "$SCRATCH/flipped"
expect_status 1
expect_lines "$err" 1 "one line"
expect_contains "$err" "pdx: $h1: " "the host named"
expect_contains "$err" "failed its check" "why"
[[ ! -e $SCRATCH/flipped/$h1/big ]] || fail "the file was placed"
no_leftovers "$SCRATCH/flipped"

# No link to be made (nobody listens where pdx connects): pulled over ssh, said once for both.
PDX_TEST_DIRECT_VIA=127.0.0.1:1 run_ssh -w "$h1,$h2" pull "$dir/big" "$SCRATCH/fallback"
expect_status 0
expect_eq "$(grep -c 'no direct data link' <<< "$err")" 1 "said once"
expect_contains "$err" "pdx: warning: 127.0.0.[1-2]: no direct data link ($h1: " "both hosts, one reason"
for i in 1 2; do
  cmp "$(home_of "$i")/$dir/big" "$SCRATCH/fallback/$(host "$i")/big" || fail "host $i's file"
done
# ... and with --data-via direct, the hosts fail.
PDX_TEST_DIRECT_VIA=127.0.0.1:1 run_ssh -w "$h1" pull --data-via direct "$dir/big" "$SCRATCH/refused"
expect_status 1
expect_contains "$err" "pdx: $h1: no direct data link: " "why"
[[ ! -e $SCRATCH/refused/$h1/big ]] || fail "the file was pulled"

# A REMOTE the host cannot read: its agent's words, status 1.
run_ssh -w "$h1" pull --data-via direct "$dir/missing" "$SCRATCH/missing"
expect_status 1
expect_contains "$err" "pdx: $h1: " "the host named"
expect_contains "$err" "missing" "what is missing"
true
