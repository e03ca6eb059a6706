#!/bin/bash
# ^FILE reads a hostfile: comments, blank lines, DeepSpeed/MPI slots, expressions; -x ^FILE too.
source "$(dirname "$0")/../lib/hosts_common.sh"
dir=${PDX_TEST_TMP:-/tmp}/hosts_hostfile
mkdir -p "$dir"
cat >"$dir/hosts" <<'HOSTS'
# DeepSpeed hostfile
worker-1 slots=8
worker-2 slots=8 max_slots=8   # trailing comment

gpu[01-03]
HOSTS
printf 'gpu02\n' >"$dir/drain"

got=$("$PDX" hosts -w "^$dir/hosts" -x "^$dir/drain" --fold)
[[ $got == 'gpu[01,03],worker-[1-2]' ]] || fail "hostfile: $got"
got=$("$PDX" hosts -w "^$dir/hosts,-^$dir/drain" --count)
[[ $got == 4 ]] || fail "-^FILE: $got"

printf 'ok\nbad host=1\n' >"$dir/bad"
set +e
err=$("$PDX" hosts -w "^$dir/bad" 2>&1)
status=$?
set -e
[[ $status == 2 ]] || fail "bad line: exit $status"
[[ $err == "pdx: error: $dir/bad:2: unknown 'host=1' (expected 'host [slots=N] [max_slots=N]')" ]] ||
  fail "bad line: $err"
echo ok
