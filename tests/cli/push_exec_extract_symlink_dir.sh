# push --extract of an archive holding a directory sub/ where DEST/sub is a symlink (to
# /scratch, say): refused as push (with or without the agent) refuses it, naming DEST/sub; the
# symlink stays and nothing is written through it.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
mkdir -p "$SCRATCH/src/sub" "$SCRATCH/elsewhere" "$SCRATCH/dest"
echo data > "$SCRATCH/src/sub/f"
(cd "$SCRATCH/src" && "$PDX" pack sub -o ../sub.tar) > /dev/null || fail "pack failed"
ln -s "$SCRATCH/elsewhere" "$SCRATCH/dest/sub"

run_pdx -R exec -w h1 push "$SCRATCH/src/" "$SCRATCH/dest/"
expect_status 1  # what push does

run_pdx -R exec -w h1 push --extract "$SCRATCH/sub.tar" "$SCRATCH/dest/"
expect_status 1
expect_contains "$err" "pdx: h1: a symlink on the way is not followed ($SCRATCH/dest/sub)"
[[ -L $SCRATCH/dest/sub ]] || fail "the symlink was replaced: $(ls -la "$SCRATCH/dest")"
[[ -z $(ls -A "$SCRATCH/elsewhere") ]] || fail "written through the symlink"

run_pdx unpack "$SCRATCH/sub.tar" -C "$SCRATCH/dest"  # pdx unpack is the same code
expect_status 2
[[ -L $SCRATCH/dest/sub ]] || fail "unpack replaced the symlink"
true
