# Exit status is the largest of the hosts'; failures are summarised on stderr, folded.
source "$(dirname "$0")/../lib/common.sh"

run_pdx -R exec -w 'node[01-10]' 'case %h in node0[357]) exit 1;; node09) exit 4;; esac'
expect_status 4
expect_eq "$err" $'pdx: node[03,05,07]: exit 1\npdx: node09: exit 4' "summary"

run_pdx -R exec -w 'a,b' 'kill -KILL $$'
expect_status 137
expect_contains "$err" "killed by signal KILL"

run_pdx -R exec -w 'a' 'true'
expect_status 0
expect_eq "$err" ""
