# A source file that grows, or shrinks, while a push sends it: no host keeps it (a mix of two
# versions must never land under its final name), pdx names it on one line, exit 1, and the
# files before and after it complete everywhere.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 4 ? CLUSTER_SIZE : 4 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
dest=changing.$$  # the homes may be shared by concurrent test clusters: a name of this run's
clean_on_hosts "$n" "$dest"
head -c 1048576 /dev/urandom > "$SCRATCH/a_first"
head -c 1048576 /dev/urandom > "$SCRATCH/z_after"
"$PDX" -F "$CONFIG" -w "$hosts" push "$PDX_SRC/README.md" "$dest/warm/" > /dev/null 2>&1  # deploy

for change in grow shrink; do
  head -c 67108864 /dev/urandom > "$SCRATCH/m_big"  # 4 broadcast windows
  "$PDX" -F "$CONFIG" -w "$hosts" push "$SCRATCH/a_first" "$SCRATCH/m_big" "$SCRATCH/z_after" \
    "$dest/$change/" > "$SCRATCH/stdout" 2> "$SCRATCH/stderr" &
  pid=$!
  # pdx has m_big open: it is being read (a star host takes 64 MiB in well under a second, so
  # waiting for a_first to land on a host may see it read whole before a byte changes).
  for _ in $(seq 12000); do
    ls -l "/proc/$pid/fd" 2> /dev/null | grep -q -F "$SCRATCH/m_big" && break
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.01
  done
  while kill -0 "$pid" 2> /dev/null; do
    if [[ $change == grow ]]; then
      head -c 4096 /dev/urandom >> "$SCRATCH/m_big"
    else
      truncate -s -4096 "$SCRATCH/m_big"
    fi
    sleep 0.02
  done
  wait "$pid"
  status=$?
  out=$(cat "$SCRATCH/stdout")
  err=$(cat "$SCRATCH/stderr")
  expect_status 1
  expect_eq "$err" "pdx: error: $SCRATCH/m_big: changed while being sent" "error ($change)"
  expect_lines "$out" 1 "complete hosts ($change)"
  expect_contains "$out" ": 2.0 MiB in 2 files"
  for i in $(seq "$n"); do
    home=$(home_of "$i")/$dest/$change
    [[ ! -e $home/m_big ]] || fail "host $i: m_big kept though it changed while sent ($change)"
    cmp -s "$SCRATCH/a_first" "$home/a_first" || fail "host $i: a_first not complete ($change)"
    cmp -s "$SCRATCH/z_after" "$home/z_after" || fail "host $i: z_after not complete ($change)"
    no_leftovers "$home"
  done
done
