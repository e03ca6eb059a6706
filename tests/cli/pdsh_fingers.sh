# What pdsh users type, under -R exec, pdx as pdsh against Debian's pdsh 2.34 where installed:
# -q (options and hosts), -Q (hosts), -L (modules), -N and a last line without a newline,
# hostfiles with #include, -w - (stdin), /regex/ in -w and -x, rcmd:user@host prefixes, a host
# named twice, 'h[1-2' as a literal host, -d's statistics, -S after a -u timeout (254) and
# after a signal, -h on stderr with status 1, and usage errors' status 1.
source "$(dirname "$0")/../lib/pdsh_common.sh"

node=$(hostname -s)
# The same run through pdx and Debian's pdsh, byte for byte (one host, or -f 1: a fixed order).
# The program's own path (-q's "Full program pathname") is the one line that differs.
same_bytes_as_pdsh() {
  "$PDSH" "$@" > "$SCRATCH/mine.out" 2> "$SCRATCH/mine.err" < "${PDSH_STDIN:-/dev/null}"
  status=$?
  out=$(cat "$SCRATCH/mine.out") err=$(cat "$SCRATCH/mine.err")
  [[ -n $REAL_PDSH ]] || return 0
  "$REAL_PDSH" "$@" > "$SCRATCH/real.out" 2> "$SCRATCH/real.err" < "${PDSH_STDIN:-/dev/null}"
  real_status=$?
  local drop='^(Full program pathname|Remote program path)'
  cmp -s <(grep -Ev "$drop" "$SCRATCH/mine.out") <(grep -Ev "$drop" "$SCRATCH/real.out") ||
    fail "stdout vs pdsh $*: [$(od -c "$SCRATCH/mine.out" | head -5)] vs [$(od -c "$SCRATCH/real.out" | head -5)]"
  expect_eq "$err" "$(cat "$SCRATCH/real.err")" "stderr vs pdsh $*"
  expect_eq "$status" "$real_status" "exit status vs pdsh $*"
}

# -q: every option's value and the hosts folded as pdsh folds them; -Q: the hosts one by one.
same_bytes_as_pdsh -R exec -w 'n[1-3],n1,n9,n10,n011' -x n2 -l bob -u 4 -f 7 -N -d -b -q echo hi
expect_status 0
expect_contains "$out" $'Command:\t\techo hi'
expect_contains "$out" $'Rcmd type\t\texec'
expect_contains "$out" $'Remote username\t\tbob'
expect_eq "$(tail -2 <<< "$out")" $'-- Target nodes --\nn[1,3,1,9-10,011]'
same_bytes_as_pdsh -R exec -w 'n[1-3],n1,127.0.0.[1-2]' -Q
expect_eq "$(tail -1 <<< "$out")" "n1,n2,n3,n1,127.0.0.1,127.0.0.2"
"$PDSH" -w n1 -q | grep -q $'^Rcmd type\t\tssh$' || fail "-q without -R: ssh (pdsh's own: rsh)"

# -L: the modules, in pdsh's format, so that `pdsh -L | grep rcmd/ssh` finds them.
run_pdsh -L
expect_status 0
expect_contains "$out" "Module: rcmd/ssh"
expect_contains "$out" "Module: rcmd/exec"
expect_contains "$out" "Module: misc/genders"
expect_eq "$(head -1 <<< "$out")" "3 modules loaded:"

# A last line without a newline is printed as the host sent it, with or without -N.
same_bytes_as_pdsh -R exec -w n1 printf 'a\nbc'
expect_eq "$(od -c < "$SCRATCH/mine.out" | head -1)" "$(printf 'n1: a\nn1: bc' | od -c | head -1)"
same_bytes_as_pdsh -N -R exec -w n1 printf abc
expect_eq "$(cat "$SCRATCH/mine.out")" "abc"
same_bytes_as_pdsh -N -f 1 -R exec -w n1,n2 sh -c 'printf "%h "; printf err >&2'

# Hostfiles (WCOLL, ^FILE, -w -): '#' comments, several hosts a line, #include FILE from the
# including file's directory, a file included twice read once with a warning.
mkdir -p "$SCRATCH/hosts/sub"
printf 'a1\n#include sub/more\n  # note\nb[1-2] # rack b\n#include again\n' > "$SCRATCH/hosts/top"
printf 'm1,m2 m3\n' > "$SCRATCH/hosts/sub/more"
printf 'z9\n' > "$SCRATCH/hosts/again"
(cd "$SCRATCH" && WCOLL=hosts/top same_bytes_as_pdsh -R exec -Q)
(cd "$SCRATCH" && WCOLL=hosts/top "$PDSH" -R exec -Q > "$SCRATCH/q.out")
expect_eq "$(tail -1 "$SCRATCH/q.out")" "a1,m1,m2,m3,b1,b2,z9" "WCOLL with #include"
printf 'z9\n#include again\n' > "$SCRATCH/hosts/again"  # pdsh: the same, warning as pdsh@NODE
WCOLL=$SCRATCH/hosts/top run_pdsh -R exec -Q
expect_eq "$(tail -1 <<< "$out")" "a1,m1,m2,m3,b1,b2,z9" "a file included twice"
expect_eq "$err" "pdx: warning: file 'again' included multiple times; read once"
printf 'z9\n' > "$SCRATCH/hosts/again"
WCOLL=$SCRATCH/hosts/top same_bytes_as_pdsh -f 1 -R exec echo %h
expect_eq "$out" "$(printf '%s: %s\n' a1 a1 m1 m1 m2 m2 m3 m3 b1 b1 b2 b2 z9 z9)"
same_bytes_as_pdsh -R exec -w "^$SCRATCH/hosts/top" -x '/^m/' -Q
expect_eq "$(tail -1 <<< "$out")" "a1,b1,b2,z9"
printf 'n5\nn6,n7\n' > "$SCRATCH/stdin-hosts"
PDSH_STDIN=$SCRATCH/stdin-hosts same_bytes_as_pdsh -f 1 -R exec -w - echo %h
expect_eq "$out" "$(printf 'n5: n5\nn6: n6\nn7: n7')"

# Without -w, pdx's own PDX_HOSTS comes first, read as pdx reads it (host:port too).
PDX_HOSTS='n[1-2]:2222,n3' run_pdsh -R exec -x n2:2222 echo %h
expect_eq "$(sort <<< "$out")" $'n1: n1\nn3: n3'

# /regex/ filters (extended regexes), in -w and -x; -x drops a name's first occurrence.
same_bytes_as_pdsh -R exec -w 'n[01-12],/0$/' -Q
expect_eq "$(tail -1 <<< "$out")" "n10"
same_bytes_as_pdsh -R exec -w 'n[1-12]' -x '/^n1[0-9]?$/' -Q
expect_eq "$(tail -1 <<< "$out")" "n2,n3,n4,n5,n6,n7,n8,n9"
same_bytes_as_pdsh -R exec -w 'n[1-3],n2,n3' -x n2 -Q
expect_eq "$(tail -1 <<< "$out")" "n1,n3,n2,n3"

# rcmd:user@host prefixes: exec: runs here, user@ sets %u; two modules in one run: an error.
same_bytes_as_pdsh -w 'exec:bob@n1' echo %h %u
expect_eq "$out" "n1: n1 bob"
run_pdsh -w 'exec:n1,ssh:n2' true
expect_pdsh_usage_error
expect_contains "$err" "rcmd modules"
run_pdsh -w 'rsh:n1' true
expect_pdsh_usage_error

# A host named twice runs twice; an unclosed bracket is a host name; a reversed range an error.
same_bytes_as_pdsh -R exec -w n1,n1 echo hi
expect_eq "$out" $'n1: hi\nn1: hi'
same_bytes_as_pdsh -R exec -w 'h[1-2' echo %h
expect_eq "$out" "h[1-2: h[1-2"
run_pdsh -R exec -w 'n[5-1]' true
expect_pdsh_usage_error

# -d: pdsh's timing lines on stderr at the end.
# (pdsh's seconds are time()'s: a second may tick during the run, so numbers are not compared.)
run_pdsh -d -R exec -w n1,n2 sleep 1
expect_eq "$(sed 's/[0-9] sec/N sec/g' <<< "$err")" $'Connect time:  Avg: N sec, Min: N sec,  Max: N sec\nCommand time:  Avg: N sec, Min: N sec,  Max: N sec\nFailures:      0'
grep -Eq '^Command time:  Avg: [1-9][0-9]* sec, Min: [1-9]' <<< "$err" || fail "-d: command time [$err]"
if [[ -n $REAL_PDSH ]]; then
  run_real_pdsh -d -R exec -w n1,n2 sleep 1
  expect_eq "$(sed 's/[0-9] sec/N sec/g' <<< "$err")" "$(sed 's/[0-9] sec/N sec/g' <<< "$real_err")" "-d vs pdsh"
fi

# -S: a command timeout is 254; a command killed by a signal (exec) is 0, as pdsh's exec reads it.
run_pdsh -S -u 1 -R exec -w n1 sleep 5
expect_status 254
expect_contains "$err" "pdsh@$node: n1: command timeout"
same_bytes_as_pdsh -S -R exec -w n1 sh -c 'kill -9 $$'
expect_status 0
expect_eq "$err" "pdsh@$node: n1: sh killed by signal 9"

# stdout's reader gone (| head): the run stops at once, status 141 and silent, as pdx's own.
timeout 20 "$PDSH" -R exec -w 'n[1-4]' seq 1 100000000 2> "$SCRATCH/stderr" | head -1 > /dev/null
expect_eq "${PIPESTATUS[0]}" 141 "pdsh | head"
expect_eq "$(cat "$SCRATCH/stderr")" "" "pdsh | head: stderr"

# -h: usage on stderr, status 1; a usage error: status 1.
run_pdsh -h
expect_status 1
expect_eq "$out" ""
expect_contains "$err" "Usage: pdsh"
for bad in "-Z" "-f 0" "-w"; do
  # shellcheck disable=SC2086
  run_pdsh -R exec $bad
  expect_pdsh_usage_error
done
true
