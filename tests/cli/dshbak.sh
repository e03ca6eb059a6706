# pdx as dshbak: `pdsh ... | dshbak [-c]` groups "host: line" output by host, hosts in order of
# their numbers; -c shares one header among hosts with identical output, names folded as pdx
# folds them. Compared with Debian's dshbak where it is installed.
source "$(dirname "$0")/../lib/pdsh_common.sh"

printf '%s\n' 'n10: a' 'n2: b' 'n1: a' 'n3: a' 'not a host line' 'n2:c' ' n11 : a' > "$SCRATCH/in"

"$DSHBAK" < "$SCRATCH/in" > "$SCRATCH/out" || fail "dshbak failed"
expect_eq "$(cat "$SCRATCH/out")" "$(printf -- '----------------\n%s\n----------------\n%s\n' \
  n1 a n2 $'b\nc' n3 a n10 a n11 a)" "dshbak"
if [[ -n $REAL_DSHBAK ]]; then
  expect_eq "$(cat "$SCRATCH/out")" "$("$REAL_DSHBAK" < "$SCRATCH/in" 2> /dev/null)" "vs Debian's dshbak"
fi

"$DSHBAK" -c < "$SCRATCH/in" > "$SCRATCH/out" || fail "dshbak -c failed"
expect_eq "$(cat "$SCRATCH/out")" "$(printf -- '----------------\n%s\n----------------\n%s\n' \
  'n[1,3,10-11]' a n2 $'b\nc')" "dshbak -c"
if [[ -n $REAL_DSHBAK ]]; then  # folded the same here
  expect_eq "$(cat "$SCRATCH/out")" "$("$REAL_DSHBAK" -c < "$SCRATCH/in")" "vs Debian's dshbak -c"
fi

# pdx's own output, labels with ports, through dshbak -c.
"$PDX" -R exec -w '127.0.0.[1-3]:2222' 'echo up' < /dev/null | "$DSHBAK" -c > "$SCRATCH/out"
expect_eq "$(cat "$SCRATCH/out")" "$(printf -- '----------------\n127.0.0.[1-3]:2222\n----------------\nup\n')" "pdx | dshbak -c"

# -d DIR: each host's lines in DIR/HOST, no header; -f makes DIR first. Debian's dshbak alike.
"$DSHBAK" -f -d "$SCRATCH/per/host" < "$SCRATCH/in" || fail "dshbak -f -d failed"
expect_eq "$(cd "$SCRATCH/per/host" && ls | sort -V | tr '\n' ' ')" "n1 n2 n3 n10 n11 " "dshbak -d's files"
expect_eq "$(cat "$SCRATCH/per/host/n2")" $'b\nc' "dshbak -d n2"
if [[ -n $REAL_DSHBAK ]]; then
  "$REAL_DSHBAK" -f -d "$SCRATCH/real/host" < "$SCRATCH/in" 2> /dev/null
  diff -r "$SCRATCH/per/host" "$SCRATCH/real/host" > /dev/null || fail "dshbak -d vs Debian's"
fi
# A label that is not a file name (from what a host printed) writes nothing outside DIR.
printf '%s\n' '../escape: x' 'ok: y' | "$DSHBAK" -d "$SCRATCH/per/host" 2> "$SCRATCH/stderr" ||
  fail "dshbak -d with a bad label failed"
[[ ! -e $SCRATCH/per/escape ]] || fail "dshbak -d wrote outside DIR"
expect_eq "$(cat "$SCRATCH/per/host/ok")" "y"
expect_contains "$(cat "$SCRATCH/stderr")" "'../escape' cannot name a file"

# -h: usage on stderr, status 0 (as dshbak); usage errors: status 1 (dshbak's "Fatal").
"$DSHBAK" -h > "$SCRATCH/stdout" 2> "$SCRATCH/stderr" || fail "dshbak -h: status $?"
expect_contains "$(cat "$SCRATCH/stderr")" " -d DIR   Send output to files in DIR, one file per host"
for bad in -Z "-d $SCRATCH/missing" "file" "-f" "-c -d $SCRATCH" "-d"; do
  # shellcheck disable=SC2086
  "$DSHBAK" $bad < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
  status=$? err=$(cat "$SCRATCH/stderr")
  expect_pdsh_usage_error
done
true
