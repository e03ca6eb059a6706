# pdx pull keeps a host's symlinks as symlinks (rsync -a): a hub cache's snapshot links, `latest
# -> v3`, a dangling one and one to an absolute path arrive with their targets verbatim, and none
# is followed when the files are written (pdx's unpack); a 700 directory stays 700.
source "$(dirname "$0")/../lib/common.sh"

src=$SCRATCH/src
mkdir -p "$src/hub/blobs" "$src/hub/snapshots/r1" "$src/hub/v3" "$src/hub/private" "$SCRATCH/outside"
printf 'weights\n' > "$src/hub/blobs/aaaa"
ln -s ../../blobs/aaaa "$src/hub/snapshots/r1/model.bin"
printf 'three\n' > "$src/hub/v3/x"
ln -s v3 "$src/hub/latest"
ln -s nowhere "$src/hub/dangling"
ln -s "$SCRATCH/outside" "$src/hub/absolute"
printf 'key\n' > "$src/hub/private/key"
chmod 700 "$src/hub/private"
links() { (cd "$1" && find . -type l -printf '%P -> %l\n' | sort); }

run_pdx pull -R exec -w 'h[1-2]' "$src/hub" "$SCRATCH/out"
expect_status 0
for h in h1 h2; do
  expect_eq "$(links "$SCRATCH/out/$h/hub")" "$(links "$src/hub")" "$h: links"
  expect_eq "$(cat "$SCRATCH/out/$h/hub/snapshots/r1/model.bin")" "weights" "$h: through the link"
  expect_eq "$(stat -c %a "$SCRATCH/out/$h/hub/private")" "700" "$h: the 700 directory"
done
expect_eq "$(ls -A "$SCRATCH/outside")" "" "nothing written through a symlink"
