# pdx push SRC DEST: a file becomes DEST, or goes into it when DEST is a directory or ends in
# '/'; a directory goes into DEST, its contents when written DIR/, the same on a re-run (rsync).
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
printf 'data\n' > "$SCRATCH/f"

run_pdx -R exec -w h1 push "$SCRATCH/f" "$SCRATCH/out/renamed"
expect_status 0
expect_eq "$(cat "$SCRATCH/out/renamed")" "data" "file as DEST"

run_pdx -R exec -w h1 push "$SCRATCH/f" "$SCRATCH/into/"
expect_status 0
expect_eq "$(cat "$SCRATCH/into/f")" "data" "file into DEST/"

mkdir "$SCRATCH/existing"
run_pdx -R exec -w h1 push "$SCRATCH/f" "$SCRATCH/existing"
expect_status 0
expect_eq "$(cat "$SCRATCH/existing/f")" "data" "file into an existing directory"

mkdir -p "$SCRATCH/tree/s"
printf 'x' > "$SCRATCH/tree/s/x"
run_pdx -R exec -w h1 push "$SCRATCH/tree/" "$SCRATCH/contents"
expect_status 0
expect_eq "$(cat "$SCRATCH/contents/s/x")" "x" "DIR/ contents"

run_pdx -R exec -w h1 push "$SCRATCH/tree" "$SCRATCH/nested"
expect_status 0
rm "$SCRATCH/nested/tree/s/x"
run_pdx -R exec -w h1 push "$SCRATCH/tree" "$SCRATCH/nested"
expect_status 0
expect_eq "$(cd "$SCRATCH/nested" && find . -type f)" "./tree/s/x" "a directory, pushed twice"
