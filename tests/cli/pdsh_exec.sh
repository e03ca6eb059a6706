# pdx as pdsh with -R exec (and PDSH_RCMD_TYPE=exec): the command's words kept as they are,
# %h %u %n %% in each, -w order after -x, labels cut at the first dot (all in one domain),
# options ending at the first word that is not one, pdsh's exit status with and without -S, its
# stderr line, -V, and usage errors.
# Compared with Debian's pdsh where it is installed.
source "$(dirname "$0")/../lib/pdsh_common.sh"

node=$(hostname -s)
# The same run through pdx and Debian's pdsh: the same lines (sorted: hosts run at once) and status.
same_as_pdsh() {
  run_pdsh "$@"
  [[ -n $REAL_PDSH ]] || return 0
  local mine_out=$out mine_err=$err mine_status=$status
  run_real_pdsh "$@"
  expect_eq "$(sort <<< "$mine_out")" "$(sort <<< "$real_out")" "stdout vs pdsh $*"
  expect_eq "$(sort <<< "$mine_err")" "$(sort <<< "$real_err")" "stderr vs pdsh $*"
  expect_eq "$mine_status" "$real_status" "exit status vs pdsh $*"
  out=$mine_out err=$mine_err status=$mine_status
}

same_as_pdsh -R exec -w 'n3,a.b.c,n1,n[5-6]' -x n5 echo %h %n '%%' %X
expect_status 0
expect_eq "$(sort <<< "$out")" "$(printf '%s\n' 'a: a.b.c 1 % %X' 'n1: n1 2 % %X' 'n3: n3 0 % %X' 'n6: n6 3 % %X')"

same_as_pdsh -R exec -w n1 sh -c 'echo "$1|$2"' sh 'two  spaces' "it's"  # words stay words
expect_eq "$out" "n1: two  spaces|it's"

same_as_pdsh -R exec -w n1 echo -w n2  # options end at the command
expect_eq "$out" "n1: -w n2"

same_as_pdsh -R exec -w n1,n2 sh -c 'echo out; echo err >&2; exit %n'
expect_status 0  # pdsh without -S
expect_contains "$err" "pdsh@$node: n2: sh exited with exit code 1"
expect_contains "$err" "n1: err"

PDSH_RCMD_TYPE=exec same_as_pdsh -S -w n1,n2,n3 sh -c 'exit %n'
expect_status 2
expect_eq "$(sort <<< "$err")" "$(printf 'pdsh@%s: n2: sh exited with exit code 1\npdsh@%s: n3: sh exited with exit code 2' "$node" "$node" | sort)"

printf 'w1\nw2\n' > "$SCRATCH/wcoll"
WCOLL=$SCRATCH/wcoll FANOUT=1 PDSH_RCMD_TYPE=exec same_as_pdsh -N echo %h
expect_eq "$(sort <<< "$out")" "$(printf 'w1\nw2')"

run_pdsh -V
expect_status 0
expect_contains "$out" "pdsh-2.34 (pdx " "-V"

for bad in "-Z" "-R rsh" "-f 0" "-t x" "-w n1" "-w"; do
  # shellcheck disable=SC2086
  run_pdsh -R exec $bad
  [[ $bad == "-w n1" ]] && expect_contains "$err" "no command given" "$bad"
  expect_pdsh_usage_error
done
PDSH_SSH_ARGS_APPEND="-p notaport" run_pdsh -w n1 true
expect_pdsh_usage_error
true
