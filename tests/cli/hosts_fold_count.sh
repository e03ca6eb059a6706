#!/bin/bash
# --fold prints the folded set (like nodeset -f), --count the number of hosts (like nodeset -c).
source "$(dirname "$0")/../lib/hosts_common.sh"

expect 'node[01-16,18-64]' -w 'node[01-64]' -x node17 --fold
expect 'rack[1-2]-node[01-04]' -w 'rack[1-2]-node[01-04]' --fold
expect 'm[09-10],n[9-10]' -w n10,m10,n9,m09 --fold
expect '127.0.0.[1-4]:2222' -w '127.0.0.[1-4]:2222' --fold
expect 'root@gpu[1-2]' -w 'root@gpu[1-2]' --fold
expect '63' -w 'node[01-64]' -x node17 --count
expect '1000000' -w 'n[1-1000000]' --count

# The folded set reads back as the same hosts.
folded=$("$PDX" hosts -w 'a[1-3,5],b[07-12]-ib,c,10.1.[0-1].[1-9]' -x a2 --fold)
[[ $("$PDX" hosts -w "$folded" --count) == 28 ]] || fail "fold round trip: $folded"

# One mode at a time.
err=$("$PDX" hosts -w n1 --fold --count 2>&1) && fail "--fold --count: exit 0"
[[ $err == 'pdx: error: --fold excludes --count'* ]] || fail "--fold --count: $err"
echo ok
