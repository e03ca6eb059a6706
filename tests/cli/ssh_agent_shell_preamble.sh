# A host account whose shell's startup file prints to stdout (bash reads ~/.bashrc for an ssh
# command): push, verify, sync and pull (of a path there or not) fail that host with one line
# saying what its shell writes before the command runs (the bytes named), not "exit 97" or "not a
# tar archive"; the other host completes. The account's shell and ~/.bashrc are restored whatever
# happens.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
[[ $EUID -eq 0 ]] || skip "changing an account's shell needs root"
(( CLUSTER_SIZE >= 4 )) || skip "needs 4 hosts"
command -v bash > /dev/null && command -v usermod > /dev/null || skip "needs bash and usermod"
i=$(( CLUSTER_SIZE - 3 )) other=$(( CLUSTER_SIZE - 4 ))  # ones other tests use little
h=$(host "$i") home=$(home_of "$i") account=$(printf 'pdx%03d' "$i")
hosts=$(host "$other"),$h
dest=preamble-$(basename "$SCRATCH")
for n in "$i" "$other"; do
  rm -rf "$(home_of "$n")/${dest:?}"
  at_exit "rm -rf '$(home_of "$n")/$dest'"
done
shell=$(getent passwd "$account" | cut -d: -f7)
cp -p "$home/.bashrc" "$SCRATCH/bashrc" 2> /dev/null || : > "$SCRATCH/bashrc"
at_exit "usermod -s '$shell' '$account'; cp -p '$SCRATCH/bashrc' '$home/.bashrc'"
usermod -s /bin/bash "$account" || skip "cannot change $account's shell"
{ echo 'echo "Welcome to the cluster"'; cat "$SCRATCH/bashrc"; } > "$home/.bashrc"
[[ $(ssh -F "$CONFIG" -o BatchMode=yes "$h" true 2> /dev/null) == "Welcome to the cluster" ]] ||
  skip "bash does not read ~/.bashrc for an ssh command here"
said="pdx: $h: the host's shell writes 23 bytes before the command runs: 'Welcome to the cluster?' (a startup file printing to stdout?)"
mkdir -p "$SCRATCH/src"
printf 'data\n' > "$SCRATCH/src/f"

# The agent missing there (a new cache) and there: the same line.
mv "$home/.cache/pdx" "$home/.cache/pdx.$(basename "$SCRATCH")" 2> /dev/null &&
  at_exit "rm -rf '$home/.cache/pdx' && mv '$home/.cache/pdx.$(basename "$SCRATCH")' '$home/.cache/pdx'"
for run in missing cached; do
  if [[ $run == cached ]]; then  # deployed with the account's own shell
    usermod -s "$shell" "$account"
    run_ssh -w "$h" push "$SCRATCH/src" "$dest/x/"
    usermod -s /bin/bash "$account"
  fi
  run_ssh -w "$hosts" push "$SCRATCH/src" "$dest/$run/"
  expect_status 1
  expect_eq "$err" "$said" "push ($run)"
  expect_eq "$out" "pdx: $(host "$other"): 5 B in 1 file" "push's summary ($run)"
done
run_ssh -w "$hosts" verify "$dest/cached"
expect_status 1
expect_contains "$err" "$said" "verify"
run_ssh -w "$hosts" sync "$SCRATCH/src" "$dest/cached/"
expect_status 1
expect_contains "$err" "$said" "sync"
mkdir "$SCRATCH/pulled" "$home/$dest/cached"
cp -r "$SCRATCH/src" "$home/$dest/cached/"
chown -R "$account:" "$home/$dest"
run_ssh -w "$hosts" pull "$dest/cached/src" "$SCRATCH/pulled"
expect_status 1
expect_contains "$err" "$said" "pull"
# A path that is not there: the host's tar writes an empty archive (its end blocks only) after the
# startup file's text; that too is named, not unpacked as an empty archive nor "not a tar archive".
run_ssh -w "$h" pull "$dest/cached/none" "$SCRATCH/pulled"
expect_status 1
expect_contains "$err" "$said" "pull of nothing"
[[ $err != *"not a tar"* ]] || fail "pull of nothing: $err"
