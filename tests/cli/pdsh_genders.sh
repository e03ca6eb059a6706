# Genders (pdx(1), Where the hosts come from): pdx as pdsh with the genders module's -g -X -a -A
# -i -F, $PDSH_GENDERS_FILE and $PDSH_GENDERS_DIR, picking the same hosts as Debian's pdsh (-R
# exec, echo %h; sorted, as hosts run at once); pdx's own -g -X --genders; the errors.
source "$(dirname "$0")/../lib/pdsh_common.sh"

cat > "$SCRATCH/genders" <<'G'
# a test cluster
n1 compute,gpu=a100,altname=e1
n2 compute,gpu=h100,altname=e2
n3 compute,pdsh_all_skip
n4 login
n[5-6] compute,gpu=a100
n7 pdsh_rcmd_type=bob@exec
G
cd "$SCRATCH" || exit 1

# picks EXPECTED ARGS...: pdx as pdsh runs `echo %h` on EXPECTED (sorted, one line), as pdsh does.
picks() {
  local expected=$1
  shift
  run_pdsh -R exec -N "$@" echo %h
  expect_status 0
  expect_eq "$(sort <<< "$out" | tr '\n' ' ')" "$expected " "pdsh $*"
  [[ -n $REAL_PDSH ]] || return 0
  run_real_pdsh -R exec -N "$@" echo %h
  expect_eq "$(sort <<< "$real_out" | tr '\n' ' ')" "$expected " "Debian's pdsh $*"
}

picks "e1 e2 n3 n5 n6" -F ./genders -g compute
picks "e1 n5 n6" -F ./genders -g gpu=a100
picks "e2 n4" -F ./genders -g gpu=h100,login
picks "e1 e2 n5 n6" -F ./genders -g 'compute&&gpu'
picks "n4 n7" -F ./genders -g '~compute'
picks "e1 e2 n4 n5 n6 n7" -F ./genders -a
picks "e1 e2 n3 n4 n5 n6 n7" -F ./genders -A
picks "n1 n2 n3 n4 n5 n6 n7" -F ./genders -A -i
picks "e2 n4 n5 n6 n7" -F ./genders -a -x n1          # -x before the altnames
picks "e1 n3 n5 n6" -F ./genders -g compute -X gpu=h100
picks "e1 n1 n2" -F ./genders -w n1,n2,n4,e1 -g compute  # -g filters -w
picks "n2 n9" -F ./genders -w e1,n2,n9 -X gpu=a100
picks "e1 e2 n4" -F ./genders -w n1,n2,n4 -i
PDSH_GENDERS_FILE=./genders picks "e1 n5 n6" -g gpu=a100
PDSH_GENDERS_DIR=$SCRATCH picks "e1 n5 n6" -F genders -g gpu=a100
WCOLL=/nonexistent PDSH_GENDERS_FILE=./genders picks "n4" -g login  # before $WCOLL

# pdsh_rcmd_type: its user is the host's
run_pdsh -R exec -F ./genders -w n7,n4 echo %u
expect_eq "$(sort <<< "$out")" "$(printf 'n4: %s\nn7: bob' "$(id -un)")"
run_pdsh -F ./genders -w n7 -t 1 true  # ssh: n7 wants exec
expect_contains "$err" "pdx: warning: genders pdsh_rcmd_type gives bob@n7 rcmd exec; pdx reaches every host of a run with ssh (-R)"

# -h lists them, as pdsh -h does
run_pdsh -h
expect_contains "$err" "-g query,...      target nodes using genders query"

# errors
run_pdsh -R exec -F ./nonexistent -g compute true
expect_status 1
expect_contains "$err" "pdx: error: ./nonexistent: error opening genders file; "
run_pdsh -R exec -F ./genders -a -g compute true
expect_pdsh_usage_error
run_pdsh -R exec -F ./genders -g 'gpu=~a' true
expect_pdsh_usage_error
expect_contains "$err" "genders query 'gpu=~a': query syntax error"
run_pdsh -R exec -F ./genders -g nosuch true
expect_pdsh_usage_error
PDSH_GENDERS_FILE=./nonexistent run_pdsh -R exec -w n1 -N echo %h  # no genders option: no error
expect_status 0
expect_eq "$out" "n1"

# pdx's own: -g, -X, --genders (its -F is ssh's)
run_pdx -R exec --genders ./genders -g compute -X gpu=a100 -N echo %h
expect_status 0
expect_eq "$(sort <<< "$out" | tr "\n" " ")" "e2 n3 "
PDSH_GENDERS_FILE=./genders run_pdx -R exec -w n1,n4,n9 -X compute -N echo %h
expect_eq "$(sort <<< "$out" | tr '\n' ' ')" "n4 n9 "
run_pdx -R exec --genders ./nonexistent -g compute true
expect_status 1
expect_contains "$err" "./nonexistent: error opening genders file"
# pdx hosts: the set pdsh -q shows as its target nodes
run_pdx hosts --genders ./genders -g 'compute||login' -X gpu=h100 --fold
expect_status 0
expect_eq "$out" "e1,n[3-6]"
if [[ -n $REAL_PDSH ]]; then
  run_real_pdsh -F ./genders -g 'compute||login' -X gpu=h100 -q true
  expect_eq "$(tail -n 1 <<< "$real_out")" "$out" "pdsh -q's target nodes"
fi
run_pdx -R exec -w n1 -N echo %h  # no genders option: /etc/genders is not read
expect_eq "$out" "n1"
true
