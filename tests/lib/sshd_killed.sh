# Shared by tests/cli/ssh_push_sshd_killed*.sh: the sshd serving host 2's connection killed in the
# middle of a push of 4 files of 32 MiB to 3 hosts, once host 2's agent has written a first MiB
# of them (the agent stopped then, so that the push to host 2 cannot end before its sshd is
# killed, however fast or loaded the machine); host 2 fails on one line, the others complete; no
# truncated file under a final name and no temporary one; a re-run sends it only what it lacks.
#   sshd_killed_push CALL [PUSH_OPTIONS...]: CALL the agent's mode whose writing is watched
#   (--receive over ssh, by the agent that listed; --relay over a direct link); sets `kept`, the
#   files host 2 has whole.
source "$(dirname "${BASH_SOURCE[0]}")/ssh_common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/push_common.sh"
[[ $EUID -eq 0 ]] || skip "needs an account per host (root)"
(( CLUSTER_SIZE >= 3 )) || skip "needs 3 hosts"

sshd_killed_push() {
  local call=$1 pid landed user stopped agent got f i
  shift
  hosts=$(head -n 3 "$HOSTFILE" | paste -sd,)
  dest=sshdkilled.$$  # the homes may be shared by concurrent test clusters: a name of this run's
  clean_on_hosts 3 "$dest"
  mkdir "$SCRATCH/src"
  for f in a b c d; do head -c 33554432 /dev/urandom > "$SCRATCH/src/$f"; done
  "$PDX" -F "$CONFIG" -w "$hosts" push "$PDX_SRC/README.md" "$dest/warm/" > /dev/null 2>&1  # deploy

  "$PDX" -F "$CONFIG" -w "$hosts" push "$@" "$SCRATCH/src" "$dest/" > "$SCRATCH/stdout" \
    2> "$SCRATCH/stderr" &
  pid=$!
  at_exit "kill -KILL $pid 2> /dev/null"
  landed=$(home_of 2)/$dest/src
  user=$(stat -c %U "$(home_of 2)")
  stopped=""
  while [[ -z $stopped ]]; do
    kill -0 "$pid" 2> /dev/null || fail "the push ended early: $(cat "$SCRATCH/stderr")"
    for agent in $(pgrep -u "$user" -f "agent .*$call=$dest/"); do
      # What it wrote (wchar: its files), not what it read: rchar counts read(2), not the recv(2)
      # of its direct link. Stopped at once, by the pid just read: over a direct link the agent
      # needs no sshd to read on, and may have ended by the time another pgrep looked for it.
      got=$(awk '$1 == "wchar:" {print $2}' "/proc/$agent/io" 2> /dev/null)
      if (( ${got:-0} > 1048576 )) && kill -STOP "$agent" 2> /dev/null; then
        stopped=$agent
        break
      fi
    done
    sleep 0.01
  done
  kill_sshd_of "$user" "agent .*$call=$dest/" "$stopped"
  wait "$pid"
  status=$?
  out=$(cat "$SCRATCH/stdout")
  err=$(cat "$SCRATCH/stderr")
  expect_status 255
  expect_eq "$out" "pdx: 127.0.0.[1,3]: 128.0 MiB in 4 files" "complete hosts"
  expect_lines "$err" 1 "failures"
  expect_contains "$err" "pdx: $(host 2): "
  kept=0
  for f in a b c d; do
    [[ -e $landed/$f ]] || continue
    cmp -s "$SCRATCH/src/$f" "$landed/$f" || fail "host 2: $f under its final name but truncated"
    kept=$(( kept + 1 ))
  done
  no_leftovers "$(home_of 2)/$dest"

  run_ssh -w "$hosts" push "$@" "$SCRATCH/src" "$dest/"
  expect_status 0
  if (( kept < 4 )); then
    expect_contains "$out" "pdx: $(host 2): $(( (4 - kept) * 32 )).0 MiB in $(( 4 - kept )) file"
    expect_contains "$out" "pdx: 127.0.0.[1,3]: up to date"
  else
    expect_eq "$out" "pdx: 127.0.0.[1-3]: up to date" "every host up to date"
  fi
  for i in 1 2 3; do
    same_tree "$SCRATCH/src" "$(home_of "$i")/$dest/src"
    no_leftovers "$(home_of "$i")/$dest"
  done
}
