#!/bin/bash
# Without -w, pdx takes its hosts from PDX_HOSTS, then from the hostfile named by WCOLL (as pdsh).
source "$(dirname "$0")/../lib/hosts_common.sh"
dir=${PDX_TEST_TMP:-/tmp}/hosts_env
mkdir -p "$dir"
printf 'w1\nw2\n' >"$dir/wcoll"

got=$(PDX_HOSTS='p[1-2]' WCOLL=$dir/wcoll "$PDX" hosts --fold)
[[ $got == 'p[1-2]' ]] || fail "PDX_HOSTS: $got"
got=$(env -u PDX_HOSTS WCOLL=$dir/wcoll "$PDX" hosts --fold)
[[ $got == 'w[1-2]' ]] || fail "WCOLL: $got"
got=$(PDX_HOSTS='p[1-2]' WCOLL=$dir/wcoll "$PDX" hosts -w x)
[[ $got == 'x' ]] || fail "-w wins: $got"
got=$(PDX_HOSTS='p[1-3]' "$PDX" hosts -x p2 --fold)
[[ $got == 'p[1,3]' ]] || fail "-x with PDX_HOSTS: $got"

set +e
err=$(env -u PDX_HOSTS -u WCOLL "$PDX" hosts 2>&1)
status=$?
set -e
[[ $status == 2 ]] || fail "no hosts: exit $status"
[[ $err == 'pdx: error: no hosts: use -w, PDX_HOSTS or WCOLL' ]] || fail "no hosts: $err"
echo ok
