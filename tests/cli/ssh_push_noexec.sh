# A host whose ~/.cache/pdx is a noexec mount: the agent is uploaded there but cannot run, so
# that host is pushed through its sh and tar, with one warning naming it; the other host gets
# the agent. Both end with the same tree. (Root only: it mounts a tmpfs for one account.)
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "mounting a noexec tmpfs needs root"
(( CLUSTER_SIZE >= 2 )) || skip "needs 2 hosts"
# The cluster's last two hosts: the ones other tests sharing these homes use least.
noexec=$CLUSTER_SIZE other=$(( CLUSTER_SIZE - 1 ))
hosts=$(host "$other"),$(host "$noexec")
dest="noexec $(basename "$SCRATCH")"
clean_on_hosts "$CLUSTER_SIZE" "$dest"
cache=$(home_of "$noexec")/.cache/pdx
account=$(printf 'pdx%03d' "$noexec")
mkdir -p "$cache" && chown "$account:" "$(dirname "$cache")" "$cache"
mount -t tmpfs -o noexec,size=256m,uid="$(id -u "$account")",gid="$(id -g "$account")" pdx-noexec "$cache" ||
  skip "cannot mount a tmpfs here"
at_exit "umount '$cache'"
make_tree "$SCRATCH/src"

run_ssh -w "$hosts" push "$SCRATCH/src" "$dest/"
expect_status 0
expect_eq "$out" "pdx: $("$PDX" hosts --fold -w "$hosts"): 3.0 MiB in 8 files" "summary"
expect_eq "$err" "pdx: warning: $(host "$noexec"): the agent cannot run there (its copy in ~/.cache/pdx is not executable); pushing with the host's sh and tar (slower)" "warning"
for i in "$other" "$noexec"; do
  same_tree "$SCRATCH/src" "$(home_of "$i")/$dest/src"
  [[ -z $(find "$(home_of "$i")/$dest" -name '.push.pdx-*') ]] || fail "host $i: temporary directory left"
done

# Run again, the host's copy is what was uploaded but cannot run: it is not uploaded again.
agent=$(find "$cache" -name pdx -type f)
[[ -n $agent ]] || fail "no agent in $cache"
before=$(stat -c '%i %z' "$agent")
run_ssh -w "$hosts" push "$SCRATCH/src" "$dest/"
expect_status 0
expect_eq "$err" "pdx: warning: $(host "$noexec"): the agent cannot run there (its copy in ~/.cache/pdx is not executable); pushing with the host's sh and tar (slower)" "warning, run again"
[[ $(stat -c '%i %z' "$agent") == "$before" ]] || fail "the agent was uploaded again"

# A read-only ~/.cache/pdx without the agent: push and verify go through the host's tools, with
# one warning each.
rm -rf "${cache:?}"/*
mount -o remount,ro "$cache" || skip "cannot remount the tmpfs read-only"
run_ssh -w "$hosts" push "$SCRATCH/src" "$dest/ro/"
expect_status 0
expect_contains "$err" "pdx: warning: $(host "$noexec"): the agent cannot run there (cannot install it: making the directory failed in $(home_of "$noexec")/.cache/pdx/"
expect_lines "$err" 1 "warnings (read-only)"
same_tree "$SCRATCH/src" "$(home_of "$noexec")/$dest/ro/src"
run_ssh -w "$hosts" verify "$dest/ro"
expect_status 0
expect_contains "$err" "pdx: warning: $(host "$noexec"): the agent cannot run there (cannot install it: making the directory failed in"
expect_lines "$(grep warning <<< "$err")" 1 "warnings (verify, read-only)"
