# pdx push: usage errors exit 2 before any host is touched; a host whose DEST is a file where a
# directory is needed fails alone, named with the reason and the path; the others complete; an
# agent that cannot be installed names the step that failed.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
printf 'data\n' > "$SCRATCH/f"

run_pdx -R exec -w h1 push "$SCRATCH/f"
expect_usage_error
run_pdx -R exec -w h1 push "$SCRATCH/missing" "$SCRATCH/d/"
expect_usage_error
expect_contains "$err" "missing: No such file or directory"
[[ ! -e $SCRATCH/d ]] || fail "DEST made despite the usage error"

mkdir -p "$SCRATCH/d"
printf 'in the way' > "$SCRATCH/d/h2"
run_pdx -R exec -w 'h[1-3]' push "$SCRATCH/f" "$SCRATCH/d/%h/"
expect_status 1
expect_eq "$out" "pdx: h[1,3]: 5 B in 1 file" "complete hosts"
expect_eq "$err" "pdx: h2: Not a directory ($SCRATCH/d/h2/)" "failure"
expect_eq "$(cat "$SCRATCH/d/h1/f")" "data" "h1's copy"
expect_eq "$(cat "$SCRATCH/d/h2")" "in the way" "h2's file"
# The same with --extract: the host fails before anything is sent to it.
(cd "$SCRATCH" && "$PDX" pack f -o f.tar) > /dev/null || fail "pack failed"
run_pdx -R exec -w 'h[1-3]' push --extract "$SCRATCH/f.tar" "$SCRATCH/d/%h"
expect_status 1
expect_eq "$err" "pdx: h2: Not a directory ($SCRATCH/d/h2)" "failure (--extract)"
expect_eq "$(cat "$SCRATCH/d/h2")" "in the way" "h2's file (--extract)"

# The agent cannot be installed (its cache directory cannot be made): the step is named, and the
# host is pushed with its sh and tar.
mkdir -p "$SCRATCH/blocked"
touch "$SCRATCH/blocked/.cache"
HOME=$SCRATCH/blocked run_pdx -R exec -w h1 push "$SCRATCH/f" "$SCRATCH/e/"
expect_status 0
expect_contains "$err" "pdx: warning: h1: the agent cannot run there (cannot install it: making the directory failed in $SCRATCH/blocked/.cache/pdx/"
expect_eq "$(cat "$SCRATCH/e/f")" "data" "the file pushed without the agent"
