# pdx push copies a tree with awkward names to every host, keeping modes and mtimes; the agent
# is deployed once into ~/.cache/pdx/<hash>/pdx; a re-run sends nothing.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
make_tree "$SCRATCH/src"

run_pdx -R exec -w 'h[1-4]' push "$SCRATCH/src" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-4]: 3.0 MiB in 8 files" "summary"
for h in h1 h2 h3 h4; do same_tree "$SCRATCH/src" "$SCRATCH/dest/$h/src"; done
no_leftovers "$SCRATCH/dest"
[[ ! -e PWNED && ! -e $SCRATCH/dest/h1/PWNED ]] || fail "a name was run by a shell"
agents=$(find "$HOME/.cache/pdx" -name pdx -type f -perm -0755 | wc -l)
expect_eq "$agents" 1 "deployed agents"
cmp -s "$(deployed_agent)" "$HOME"/.cache/pdx/*/pdx || fail "the deployed agent is not $(deployed_agent)"

run_pdx -R exec -w 'h[1-4]' push "$SCRATCH/src" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-4]: up to date" "re-run summary"

# One host lost a file, another has a changed one: only those are sent, to those hosts.
rm "$SCRATCH/dest/h2/src/plain"
printf 'other\n' > "$SCRATCH/dest/h3/src/with space"
run_pdx -R exec -w 'h[1-4]' push "$SCRATCH/src" "$SCRATCH/dest/%h/"
expect_status 0
expect_contains "$out" "pdx: h[1,4]: up to date"
expect_contains "$out" "pdx: h[2-3]: 6 B in 1 file"
for h in h2 h3; do same_tree "$SCRATCH/src" "$SCRATCH/dest/$h/src"; done
