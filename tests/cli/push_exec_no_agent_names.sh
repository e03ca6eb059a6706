# pdx push --no-agent of a tree whose names are not all UTF-8 (bytes 0xff, 0xfe, and UTF-8 that
# the C locale cannot convert): every file lands byte for byte under its own name, the ones after
# it too, directories with their mtimes and modes (0555 too); a run again is up to date, and a
# changed file alone goes again.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
src=$SCRATCH/src
make_names_tree "$src"
chmod 0555 "$src/sub dir/deeper"
warning="pdx: warning: h[1-2]: the agent cannot run there (--no-agent); pushing with the host's sh and tar (slower)"

run_pdx -R exec -w 'h[1-2]' push --no-agent "$src" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-2]: 3.0 MiB in 12 files" "summary"
expect_eq "$err" "$warning" "warnings"
for h in h1 h2; do
  same_tree "$src" "$SCRATCH/dest/$h/src"
  same_dirs "$src" "$SCRATCH/dest/$h/src" "$h"
done

run_pdx -R exec -w 'h[1-2]' push --no-agent "$src" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-2]: up to date" "summary (again)"
printf 'changed\n' > "$src/"$'bad\xff'
run_pdx -R exec -w 'h[1-2]' push --no-agent "$src" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-2]: 8 B in 1 file" "summary (changed)"
for h in h1 h2; do same_tree "$src" "$SCRATCH/dest/$h/src"; done
chmod -R u+w "$src" "$SCRATCH/dest"  # for the scratch space to go, as any user
