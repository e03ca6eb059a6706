# -u kills a command that runs too long, with everything it started; the host counts as 255.
source "$(dirname "$0")/../lib/common.sh"

nap="60.$$"  # a sleep length only this test uses, to find its processes
start=$(date +%s)
run_pdx -R exec -u 1 -w 'slow[1-120],fast' "case %h in fast) echo done;; *) sleep $nap & sleep $nap;; esac"
elapsed=$(($(date +%s) - start))
expect_status 255
((elapsed < 20)) || fail "took ${elapsed}s: -u 1 did not end the run"
expect_eq "$out" "fast: done"
expect_eq "$err" "pdx: slow[1-120]: command timed out after 1s (killed)" "summary"
sleep 0.5
pgrep -f "sleep $nap" >/dev/null && fail "a command's child survived -u"
true
