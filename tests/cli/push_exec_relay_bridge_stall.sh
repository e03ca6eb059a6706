# pdx push --relay with a host stalled mid-chain (stopped, its links open): bridged once it has
# taken nothing and said nothing for 10 s, the host after it resuming from the offset it holds;
# a forged connection to that host while it waits for its bridge is refused, and the real bridge
# taken. Woken again, the stalled host fails on its own, alone, and changes nothing on the others.
source "$(dirname "$0")/../lib/relay_bridge_common.sh"

start_push "$SCRATCH/s" 'h[1-4]'
pkill -STOP -f -- "--relay=$SCRATCH/s/h2/" || fail "no agent of h2 to stop"
# h3's listener: a connection without the run's secret, first in its queue of bridges.
port=""
for pid in $(pgrep -f -- "--relay=$SCRATCH/s/h3/"); do
  port=${port:-$(ss -Htlnp 2> /dev/null | grep "pid=$pid," | awk '{print $4}' | sed 's/.*://' | head -1)}
done
[[ -n $port ]] || fail "h3 listens nowhere"
exec 3<> "/dev/tcp/127.0.0.1/$port" || fail "cannot connect to h3's port $port"
printf 'PDXR3%059d' 0 >&3
for _ in $(seq 600); do  # each host's files appear whole, in its own time (h1 may be last)
  [[ -e $SCRATCH/s/h1/small && -e $SCRATCH/s/h3/small && -e $SCRATCH/s/h4/small ]] && break
  sleep 0.1
done
exec 3>&-
complete "$SCRATCH/s" h1 h3 h4
pkill -CONT -f -- "--relay=$SCRATCH/s/h2/"
finish_push
expect_status 1
expect_contains "$err" "pdx: h2: the stream from upstream broke off: "
expect_bridged "$err" h1
expect_lines "$err" 2 "the stalled host, alone, and h1's warning"
expect_eq "$out" "pdx: h[1,3-4]: 96.0 MiB in 2 files" "the others complete"
complete "$SCRATCH/s" h1 h3 h4
no_leftovers "$SCRATCH/s/h2"
[[ ! -e $SCRATCH/s/h2/huge ]] || fail "h2: a huge under its final name"
true
