# A cached agent runs only as pdx uploaded it, in directories only the user can change.
# ~/.cache/pdx a symlink into a world-writable directory where another user planted the agent's
# <sha>/pdx (a script that leaves a marker): pdx does not run it, removes the symlink (not what
# it points to), uploads the agent again and says so once. A cached agent cut short (4 KiB left
# of it) is uploaded again too, for push and verify alike.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "planting another user's files needs root"
(( CLUSTER_SIZE >= 3 )) || skip "needs 3 hosts"
i=$(( CLUSTER_SIZE - 2 ))  # one that other tests sharing these homes use little
h=$(host "$i") home=$(home_of "$i") account=$(printf 'pdx%03d' "$i")
cache=$home/.cache/pdx
unique=$(basename "$SCRATCH")
dest=agent-untrusted-$unique
rm -rf "${home:?}/$dest"
at_exit "rm -rf '$home/$dest'"
printf 'data\n' > "$SCRATCH/f"
warning="pdx: warning: $h: the agent cached there was not as pdx left it (a symlink, another owner, write permission for others, or another size or SHA-256); uploaded it again"

run_ssh -w "$h" push "$SCRATCH/f" "$dest/"  # the agent deployed (or there already)
expect_status 0
agent=$(ls -t "$cache"/*/used | head -n 1)
sha=$(basename "$(dirname "$agent")")
[[ $sha =~ ^[0-9a-f]{64}$ ]] || fail "no agent used in $cache"

# Another user's world-writable directory, with the agent planted in it.
evil=$(mktemp -d /tmp/pdx-planted.XXXXXX)
at_exit "rm -rf '$evil'"
marker=$evil/ran
mkdir -p "$evil/pdx/$sha"
printf '#!/bin/sh\ntouch %s\n' "$marker" > "$evil/pdx/$sha/pdx"
chmod 0755 "$evil/pdx/$sha/pdx"
chown -R nobody: "$evil/pdx"
chmod 1777 "$evil" "$evil/pdx" "$evil/pdx/$sha"
mv "$cache" "$cache.$unique"
at_exit "rm -rf '$cache' && mv '$cache.$unique' '$cache'"
ln -s "$evil/pdx" "$cache"
chown -h "$account:" "$cache"

run_ssh -w "$h" push "$SCRATCH/f" "$dest/again/"
expect_status 0
[[ ! -e $marker ]] || fail "the planted agent ran"
expect_eq "$err" "$warning" "warning (planted)"
expect_eq "$(cat "$home/$dest/again/f")" "data" "the file pushed"
[[ -d $cache && ! -L $cache && -f $cache/$sha/pdx ]] || fail "the agent was not uploaded again"
[[ -f $evil/pdx/$sha/pdx ]] || fail "what the symlink pointed to was removed"
[[ $(stat -c %U "$cache/$sha/pdx") == "$account" ]] || fail "the agent is not the user's"

# Cut short: push and verify upload it again, once.
truncate -s 4096 "$cache/$sha/pdx"
run_ssh -w "$h" push "$SCRATCH/f" "$dest/short/"
expect_status 0
expect_eq "$err" "$warning" "warning (cut short, push)"
expect_eq "$(cat "$home/$dest/short/f")" "data" "the file pushed (cut short)"
truncate -s 4096 "$cache/$sha/pdx"
run_ssh -w "$h" verify "$dest/short"
expect_status 0
expect_eq "$(grep warning <<< "$err")" "$warning" "warning (cut short, verify)"
run_ssh -w "$h" push "$SCRATCH/f" "$dest/short/"
expect_status 0
expect_eq "$err" "" "nothing said once right"
[[ ! -e $marker ]] || fail "the planted agent ran"
