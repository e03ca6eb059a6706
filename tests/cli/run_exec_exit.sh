# Exit status is the largest of the hosts'; failures are summarised on stderr, folded.
source "$(dirname "$0")/../lib/common.sh"

run_pdx -R exec -w 'node[001-150]' 'case %h in node00[357]|node1[0-4]?) exit 1;; node009) exit 4;; esac'
expect_status 4
expect_eq "$err" $'pdx: node[003,005,007,100-149]: exit 1\npdx: node009: exit 4' "summary"

run_pdx -R exec -w 'a,b' 'kill -KILL $$'
expect_status 137
expect_contains "$err" "killed by signal KILL"

run_pdx -R exec -w 'a' 'true'
expect_status 0
expect_eq "$err" ""
