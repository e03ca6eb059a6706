# pdx push --relay with a host killed mid-chain: its neighbours bridge it (the host before links
# to the ones after, which resume from the offset they hold), it alone is reported failed, on one
# line, the host that bridged says so in a warning, and every other host has every file whole (nothing partial under a final name, no
# temporary file left); in a chain and in a tree; two hosts in a row too; the head, bridged
# around by pdx. More hosts in a row
# gone than a host knows of after it fail the hosts after them. (A stalled host:
# push_exec_relay_bridge_stall.sh.)
source "$(dirname "$0")/../lib/relay_bridge_common.sh"

# A chain of 5, the second after the head killed: h1 bridges to h3; h3 to h5 complete.
start_push "$SCRATCH/k" 'h[1-5]'
pkill -KILL -f -- "--relay=$SCRATCH/k/h2/" || fail "no agent of h2 to kill"
finish_push
expect_status 1
expect_contains "$err" "pdx: h2: killed by signal KILL" "the killed host, alone, on one line"
expect_bridged "$err" h1
expect_lines "$err" 2 "the killed host and h1's warning"
expect_eq "$out" "pdx: h[1,3-5]: 96.0 MiB in 2 files" "the others complete"
complete "$SCRATCH/k" h1 h3 h4 h5
[[ ! -e $SCRATCH/k/h2/huge ]] || fail "h2: a huge under its final name"

# A tree of fan-out 2 (h1 -> h2 h3, h2 -> h4 h5, h3 -> h6 h7), the inner h2 killed: h1 bridges
# to h4 and h5.
start_push "$SCRATCH/t" 'h[1-7]' --relay=tree:2
pkill -KILL -f -- "--relay=$SCRATCH/t/h2/" || fail "no agent of h2 to kill"
finish_push
expect_status 1
expect_contains "$err" "pdx: h2: killed by signal KILL" "the killed inner host, alone"
expect_bridged "$err" h1 "h1 bridged to h4 and h5"
expect_lines "$err" 2 "the killed inner host and h1's warning"
expect_eq "$out" "pdx: h[1,3-7]: 96.0 MiB in 2 files" "the others complete"
complete "$SCRATCH/t" h1 h3 h4 h5 h6 h7

# The head killed: pdx bridges around it, from here, to h2; h2 to h5 complete.
start_push "$SCRATCH/h" 'h[1-5]'
pkill -KILL -f -- "--relay=$SCRATCH/h/h1/" || fail "no agent of h1 to kill"
finish_push
expect_status 1
expect_contains "$err" "pdx: h1: killed by signal KILL" "the killed head, alone, on one line"
grep -Eqx "pdx: warning: h1: the relay's head is gone; from here, bridged around it to 127.0.0.1 port [0-9]+ from offset [0-9]+" <<< "$err" ||
  fail "pdx bridging around the head: [$err]"
expect_lines "$err" 2 "the killed head and pdx's warning"
expect_eq "$out" "pdx: h[2-5]: 96.0 MiB in 2 files" "the others complete"
complete "$SCRATCH/h" h2 h3 h4 h5
[[ ! -e $SCRATCH/h/h1/huge ]] || fail "h1: a huge under its final name"

# Two hosts in a row killed: h1 bridges around both, to h4 (it knows three hosts after it).
start_push "$SCRATCH/d" 'h[1-5]'
pkill -KILL -f -- "--relay=$SCRATCH/d/h[23]/" || fail "no agents of h2 and h3 to kill"
finish_push
expect_status 1
expect_contains "$err" "pdx: h[2-3]: killed by signal KILL"
port='127.0.0.1 port [0-9]+'
grep -Eqx "pdx: warning: h1: $port broke off \(.*\): cannot bridge to $port: [^:]*: [^:]*: bridged around it to $port from offset [0-9]+" <<< "$err" ||
  fail "h1 bridging around two hosts: [$err]"
expect_lines "$err" 2 "the killed hosts and h1's warning"
expect_eq "$out" "pdx: h[1,4-5]: 96.0 MiB in 2 files" "the others complete"
complete "$SCRATCH/d" h1 h4 h5
for h in h2 h3; do [[ ! -e $SCRATCH/d/$h/huge ]] || fail "$h: a huge under its final name"; done

# More hosts in a row killed than a host knows of after it (three in a chain): the host after
# them waits for its bridge (20 s) and fails; the one after that is told so and fails without
# waiting as long.
start_push "$SCRATCH/f" 'h[1-7]'
pkill -KILL -f -- "--relay=$SCRATCH/f/h[2-5]/" || fail "no agents of h2 to h5 to kill"
SECONDS=0
finish_push
expect_status 1
expect_contains "$err" "pdx: h[2-5]: killed by signal KILL"
expect_contains "$err" "pdx: warning: h1: 127.0.0.1 port "
expect_contains "$err" "pdx: h6: the stream from upstream broke off: "
expect_contains "$err" "pdx: h7: the stream from upstream broke off: the host before lost its own upstream, and no bridge came in 2 s"
expect_eq "$out" "pdx: h1: 96.0 MiB in 2 files" "the head completes"
(( SECONDS < 40 )) || fail "the failure took $SECONDS s to reach the last host"
complete "$SCRATCH/f" h1
for h in h2 h3 h4 h5 h6 h7; do [[ ! -e $SCRATCH/f/$h/huge ]] || fail "$h: a huge under its final name"; done
true
