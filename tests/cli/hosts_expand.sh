#!/bin/bash
# pdx hosts prints one host per line, in order of first appearance, like `nodeset -e` one per line.
source "$(dirname "$0")/../lib/hosts_common.sh"

expect $'node08\nnode09\nnode10' -w 'node[08-10]'
expect $'node8\nnode9\nnode10' -w 'node[8-10]' --expand
expect $'r1-n01\nr1-n02\nr2-n01\nr2-n02' -w 'r[1-2]-n[01-02]'
expect $'b\na\nc' -w b,a -w a,c
expect $'n1\nn3' -w 'n[1-4],-n2' -x n4
expect $'n1\nn3' -w 'n[1-3]' -w -n2
expect $'root@n1:2222\n[::1]:22\nu@[fe80::1]:2200\n::1' -w 'root@n1:2222,[::1]:22,u@[fe80::1]:2200,::1'
expect $'127.0.0.1\n127.0.0.2' -w '127.0.0.[1-2]'
[[ $("$PDX" hosts -w 'n[1-1000000]' | wc -l) == 1000000 ]] || fail "a million hosts"
echo ok
