#!/bin/bash
# Bad host expressions end with exit status 2 and one line "pdx: error: ..." naming the bad part.
source "$(dirname "$0")/../lib/hosts_common.sh"
dir=${PDX_TEST_TMP:-/tmp}/hosts_errors
mkdir -p "$dir"
: >"$dir/empty"

expect_error "unbalanced '[' in 'node[1-3'" -w 'node[1-3'
expect_error "unbalanced ']' in 'node1]'" -w 'node1]'
expect_error "reversed range '5-1' in 'n[5-1]'" -w 'n[5-1]'
expect_error "bad range 'a-b' in 'n[a-b]' (expected N, N-M or N-M/S, numbers of at most 18 digits)" -w 'n[a-b]'
expect_error "empty brackets in 'n[]'" -w 'n[]'
expect_error "'n[1-99999999]' names more than 1000000 hosts" -w 'n[1-99999999]'
expect_error "'r[1-2000]-n[1-2000]' names more than 1000000 hosts" -w 'r[1-2000]-n[1-2000]'
expect_error "cannot read hostfile '$dir/missing': No such file or directory" -w "^$dir/missing"
expect_error "hostfile '$dir/empty' names no hosts" -w "^$dir/empty"
expect_error "bad port '0' in 'n1:0' (expected 1-65535)" -w n1:0
expect_error "bad port '65536' in 'n1:65536' (expected 1-65535)" -w n1:65536
expect_error "bad port 'ssh' in 'n1:ssh' (expected 1-65535)" -w n1:ssh
expect_error "illegal character ';' in host name 'a;reboot' (use letters, digits, '-', '.', '_')" -w 'a;reboot'
expect_error "illegal character ' ' in host name 'a b' (use letters, digits, '-', '.', '_')" -w 'a b'
expect_error "illegal character '\$' in host name '\$(id)' (use letters, digits, '-', '.', '_')" -w '$(id)'
expect_error "no hosts left: every host is excluded" -w 'n[1-2]' -x 'n[1-2]'
expect_error "empty host expression given to -w" -w ''
expect_error "bad IPv6 address 'fe80::g' in '[fe80::g]:22'" -w '[fe80::g]:22'
echo ok
