#!/bin/bash
# Step ranges (ClusterShell's n[1-10/2]) expand, fold back with --autostep, and bad steps or
# bounds padded differently (n[8-012], which pdsh and pdx used to read two ways) are refused.
source "$(dirname "$0")/../lib/hosts_common.sh"

expect $'n1\nn3\nn5\nn7\nn9' -w 'n[1-10/2]'
expect $'n01\nn04\nn07\nn10\nn20' -w 'n[01-10/3,20]'
expect '4' -w 'n[1-10/3]' --count

# --fold writes no steps unless asked; --autostep N folds N or more evenly stepping numbers.
expect 'n[1,3,5,7,9]' -w 'n[1-10/2]' --fold
expect 'n[1-9/2]' -w 'n[1-10/2]' --fold --autostep 3
expect 'n[1-5,7,9]' -w 'n[1-5,7,9]' --fold --autostep 3
expect 'rack[1-5/2]-node[01-07/3]' -w 'rack[1-5/2]-node[01-07/3]' --fold --autostep 3
# The folded set reads back as the same hosts.
hosts=(-w 'a[1-99/7],b[0-40/4]-ib,c[01-05],d[1-3,5,9]' -x a8)
folded=$("$PDX" hosts "${hosts[@]}" --fold --autostep 2)
[[ $("$PDX" hosts -w "$folded" | sort) == $("$PDX" hosts "${hosts[@]}" | sort) ]] ||
  fail "autostep round trip: $folded"

expect_error "'n[8-012]': the bounds are padded differently (8 has 1 digit, 012 has 3): write n[008-012] or n[8-12]" -w 'n[8-012]'
expect_error "'c[0-00]': the bounds are padded differently (0 has 1 digit, 00 has 2): write c00 or c0" -w 'c[0-00]'
expect_error "bad step '/0' in 'n[1-10/0]' (expected N-M/S, S a number from 1 of at most 18 digits)" -w 'n[1-10/0]'
expect_error "step '/2' after the single number '5' in 'n[5/2]' (a step needs a range: N-M/S)" -w 'n[5/2]'
expect_error "'n[1-20000000/10]' names more than 1000000 hosts" -w 'n[1-20000000/10]'
err=$("$PDX" hosts -w n1 --autostep 3 2>&1) && fail "--autostep without --fold: exit 0"
[[ $err == 'pdx: error: --autostep requires --fold'* ]] || fail "--autostep without --fold: $err"
echo ok
