# Uploading the agent to a host prunes that host's ~/.cache/pdx: the 3 other agents used last
# stay (last use: the mtime of their `used`, else of their directory), and one running now however
# old; the older ones go. What is not pdx's stays: other names, a directory without pdx, a
# symlink (not followed). A prune that fails fails nothing. Running the agent marks its use.
# The temporaries that killed uploads leave (.pdx.PID in a version's directory, the one just
# installed too, or one whose first upload was killed) go once a day old; a younger one may be
# another pdx's upload under way, and stays.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
(( CLUSTER_SIZE >= 3 )) || skip "needs 3 hosts"
i=$(( CLUSTER_SIZE - 2 ))  # one that other tests sharing these homes use little
home=$(home_of "$i")
cache=$home/.cache/pdx
unique=$(basename "$SCRATCH")
dest="prune-$unique"
rm -rf "${home:?}/$dest"
sha=$(sha256sum < "$(deployed_agent)" | cut -c1-64)
rm -rf "${cache:?}/$sha"
mkdir -p "$cache"

declare -A n  # a 64 hex digit name of this run's for each entry
for name in recent1 recent2 recent3 old1 old2 stuck running link empty file upper; do
  n[$name]=$(printf '%s %s' "$unique" "$name" | sha256sum | cut -c1-64)
done
n[upper]=$(tr a-f A-F <<< "${n[upper]}")  # not a digest
at_exit "chmod u+w '$cache/${n[stuck]}' 2> /dev/null; cd '$cache' && rm -rf ${n[*]} 'notes-$unique' '$home/$dest'"
agent() {  # agent NAME DIR_MTIME [USED_MTIME]: a cached agent that is not this one
  local dir=$cache/${n[$1]}
  mkdir "$dir" && printf 'old agent\n' > "$dir/pdx" && chmod 0755 "$dir/pdx"
  [[ -z ${3:-} ]] || touch -d "$3" "$dir/used"
  touch -d "$2" "$dir/pdx" "$dir"
}
# Used in the future: they are the 3 used last, whatever other runs sharing the home have used.
agent recent1 2001-01-01 '1 hour'
agent recent2 '1 hour'
agent recent3 '1 hour'
agent old1 '1 hour' 2001-01-01  # its `used` is what counts
agent old2 2001-01-01
agent stuck 2001-01-01  # cannot be removed (made read-only below): the prune fails, silently
agent running 2000-01-01
cp /bin/sleep "$cache/${n[running]}/pdx"
touch -d 2000-01-01 "$cache/${n[running]}"
agent upper 2001-01-01
mkdir -p "$home/$dest/elsewhere" && printf 'old agent\n' > "$home/$dest/elsewhere/pdx"
touch -d 2001-01-01 "$home/$dest/elsewhere"
ln -s "$home/$dest/elsewhere" "$cache/${n[link]}"  # to an old agent's directory
mkdir "$cache/${n[empty]}"  # no pdx in it
touch -d 2001-01-01 "$cache/${n[empty]}"
touch "$cache/${n[file]}" "$cache/notes-$unique"
temporary() {  # temporary PATH AGE: as a killed upload leaves it, last written AGE ago
  printf 'part of an agent\n' > "$1" && touch -d "$2" "$1"
}
mkdir "$cache/$sha"  # this agent's first upload was killed: no pdx in it yet
temporary "$cache/$sha/.pdx.101" '2 days ago'
temporary "$cache/$sha/.pdx.102" '1 hour ago'  # another pdx's upload, under way
at_exit "rm -f '$cache/$sha/.pdx.102'"
temporary "$cache/${n[recent1]}/.pdx.103" '25 hours ago'
temporary "$cache/${n[empty]}/.pdx.104" '3 days ago'
touch -d 2001-01-01 "$cache/${n[empty]}" "$cache/${n[recent1]}"
account=$(printf 'pdx%03d' "$i")
[[ $EUID -ne 0 ]] || chown -R "$account:" "$home/.cache" "$home/$dest"
chmod 0555 "$cache/${n[stuck]}"

# The running one runs as the host's account (as root, each host has its own).
as_account=()
[[ $EUID -ne 0 ]] || as_account=(setpriv --reuid="$(id -u "$account")" --regid="$(id -g "$account")" --clear-groups)
"${as_account[@]}" "$cache/${n[running]}/pdx" 300 &
running=$!
at_exit "kill $running 2> /dev/null"
for _ in $(seq 100); do
  [[ $(readlink "/proc/$running/exe") == "$cache/${n[running]}/pdx" ]] && break
  sleep 0.05
done
printf 'data\n' > "$SCRATCH/f"
touch "$SCRATCH/before"

run_ssh -w "$(host "$i")" push "$SCRATCH/f" "$dest/"
expect_status 0
expect_eq "$out" "pdx: $(host "$i"): 5 B in 1 file" "summary"
expect_eq "$err" "" "stderr"
cmp -s "$SCRATCH/f" "$home/$dest/f" || fail "the file did not arrive"
[[ -x $cache/$sha/pdx ]] || fail "the agent was not deployed"
[[ $cache/$sha/used -nt $SCRATCH/before ]] || fail "running the agent did not mark its use"
for name in recent1 recent2 recent3 stuck running upper empty file; do
  [[ -e $cache/${n[$name]} ]] || fail "$name was removed"
done
for name in old1 old2; do
  [[ ! -e $cache/${n[$name]} ]] || fail "$name was kept"
done
[[ -e $cache/notes-$unique ]] || fail "another name was removed"
for t in "$sha/.pdx.101" "${n[recent1]}/.pdx.103" "${n[empty]}/.pdx.104"; do
  [[ ! -e $cache/$t ]] || fail "the stale temporary $t was kept"
done
[[ -e $cache/$sha/.pdx.102 ]] || fail "a temporary under way was removed"
[[ -L $cache/${n[link]} && -e $home/$dest/elsewhere/pdx ]] || fail "the symlink was followed"
kill -0 "$running" || fail "the running agent was stopped"
