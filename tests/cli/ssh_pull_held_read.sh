# pdx pull over a direct link while the host's read of a file is held up longer than pdx waits
# for a silent link (10 s: a hung NFS mount, a slow disk): the agent says it is there meanwhile
# (keepalives), so the host is pulled whole once the read goes on, not failed. The read is held
# by a write lease on the file (tests/lib/hold_lease.py): the agent's open() of it waits until
# the lease is let go, 12 s after.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
readonly HOLD=12
(($(cat /proc/sys/fs/lease-break-time) > HOLD + 5)) || skip "fs.lease-break-time is under $((HOLD + 5)) s"
h1=$(host 1)
dir="pulled $TEST_NAME"
clean_on_hosts 1 "$dir"
tree="$(home_of 1)/$dir/tree"
mkdir -p "$tree"
head -c 3000000 /dev/urandom > "$tree/a before"  # records go out before the wait
printf 'held\n' > "$tree/held"
head -c 100000 /dev/urandom > "$tree/z after"
chown -R --reference="$(home_of 1)" "$(home_of 1)/$dir"

mkdir "$SCRATCH/lease"
python3 "$PDX_SRC/tests/lib/hold_lease.py" "$tree/held" "$HOLD" "$SCRATCH/lease" &
holder=$!
at_exit "kill $holder 2> /dev/null; wait $holder 2> /dev/null"
for _ in $(seq 100); do [[ -e $SCRATCH/lease/held || -e $SCRATCH/lease/refused ]] && break; sleep 0.1; done
[[ ! -e $SCRATCH/lease/refused ]] || skip "no lease here: $(cat "$SCRATCH/lease/refused")"
[[ -e $SCRATCH/lease/held ]] || fail "the lease was not taken"

start=$SECONDS
run_ssh -w "$h1" pull --data-via direct "$dir/tree" "$SCRATCH/out"
took=$((SECONDS - start))
[[ -e $SCRATCH/lease/broken ]] || fail "the agent never opened the held file"
expect_status 0
((took >= HOLD)) || fail "the pull took $took s: the read was not held up"
expect_eq "$err" "pdx: $h1: pulled" "no warning"
for name in "a before" held "z after"; do
  cmp "$tree/$name" "$SCRATCH/out/$h1/tree/$name" || fail "$name differs"
done
no_leftovers "$SCRATCH/out"
