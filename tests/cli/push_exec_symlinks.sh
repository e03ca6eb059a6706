# pdx push sends a tree's symlinks as symlinks, their targets verbatim (rsync -a): a Hugging Face
# hub cache's snapshot links into its blobs, a dataset's `latest -> v3`, a dangling one, one to an
# absolute path (left out with --safe-links, named in a warning). A re-run is up to date; a
# changed target is replaced; a file where a symlink goes is replaced; nothing is written through
# a symlink on the host; a directory where a symlink goes is refused by name.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home

hub=$SCRATCH/models--org--tiny
mkdir -p "$hub/blobs" "$hub/refs" "$hub/snapshots/abc123/sub"
printf 'weights\n' > "$hub/blobs/1111"
printf '{"a": 1}\n' > "$hub/blobs/2222"
printf 'abc123' > "$hub/refs/main"
ln -s ../../blobs/1111 "$hub/snapshots/abc123/model.safetensors"
ln -s ../../blobs/2222 "$hub/snapshots/abc123/config.json"
ln -s ../../../blobs/2222 "$hub/snapshots/abc123/sub/nested.json"
data=$SCRATCH/data
mkdir -p "$data/v2" "$data/v3"
printf 'two\n' > "$data/v2/x"
printf 'three\n' > "$data/v3/x"
ln -s v3 "$data/latest"
ln -s does/not/exist "$data/dangling"
ln -s /etc/hostname "$data/absolute"
ln -s ../outside "$data/climbs"

# links DIR: every symlink under DIR with its target, sorted.
links() { (cd "$1" && find . -type l -printf '%P -> %l\n' | sort); }
# kinds DIR: every name under DIR with its type.
kinds() { (cd "$1" && find . -printf '%P %y\n' | sort); }

run_pdx -R exec -w 'h[1-2]' push "$hub" "$data" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$err" "" "no warning"
for h in h1 h2; do
  expect_eq "$(links "$SCRATCH/dest/$h/models--org--tiny")" "$(links "$hub")" "$h: the hub cache's links"
  expect_eq "$(links "$SCRATCH/dest/$h/data")" "$(links "$data")" "$h: the dataset's links"
  expect_eq "$(kinds "$SCRATCH/dest/$h/models--org--tiny")" "$(kinds "$hub")" "$h: the hub cache's types"
  expect_eq "$(kinds "$SCRATCH/dest/$h/data")" "$(kinds "$data")" "$h: the dataset's types"
  expect_eq "$(cat "$SCRATCH/dest/$h/models--org--tiny/snapshots/abc123/model.safetensors")" "weights" "$h: through the link"
  expect_eq "$(cat "$SCRATCH/dest/$h/data/latest/x")" "three" "$h: latest"
done
no_leftovers "$SCRATCH/dest"

run_pdx -R exec -w 'h[1-2]' push "$hub" "$data" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-2]: up to date" "re-run"

# latest moves to v2; h2 has a file where `dangling` is, h1 a symlink to a directory outside the
# tree where `latest` is: each is replaced, the directory outside is not written.
mkdir "$SCRATCH/elsewhere"
ln -sfn v2 "$data/latest"
rm "$SCRATCH/dest/h2/data/dangling" && echo file > "$SCRATCH/dest/h2/data/dangling"
ln -sfn "$SCRATCH/elsewhere" "$SCRATCH/dest/h1/data/latest"
run_pdx -R exec -w 'h[1-2]' push "$hub" "$data" "$SCRATCH/dest/%h/"
expect_status 0
for h in h1 h2; do
  expect_eq "$(links "$SCRATCH/dest/$h/data")" "$(links "$data")" "$h: links after the change"
done
expect_eq "$(ls -A "$SCRATCH/elsewhere")" "" "nothing written through a symlink"
run_pdx -R exec -w 'h[1-2]' push "$hub" "$data" "$SCRATCH/dest/%h/"
expect_eq "$out" "pdx: h[1-2]: up to date" "re-run after the change"

# A directory where a symlink goes is not replaced: named, exit 1, the rest sent.
rm "$SCRATCH/dest/h1/data/absolute" && mkdir "$SCRATCH/dest/h1/data/absolute"
ln -sfn v3 "$data/latest"
run_pdx -R exec -w h1 push "$data" "$SCRATCH/dest/h1/"
expect_status 1
expect_contains "$err" "pdx: h1: Is a directory ($SCRATCH/dest/h1/data/absolute)"
expect_eq "$(readlink "$SCRATCH/dest/h1/data/latest")" "v3" "the rest was sent"

# Without the agent (the hosts' sh and tar): the same symlinks; a re-run is up to date.
run_pdx -R exec -w h1 push --no-agent "$hub" "$data" "$SCRATCH/tar/"
expect_status 0
expect_eq "$(links "$SCRATCH/tar/data")" "$(links "$data")" "links through tar"
expect_eq "$(links "$SCRATCH/tar/models--org--tiny")" "$(links "$hub")" "hub links through tar"
run_pdx -R exec -w h1 push --no-agent "$hub" "$data" "$SCRATCH/tar/"
expect_eq "$out" "pdx: h1: up to date" "re-run through tar"

# --safe-links: the absolute symlink and the one climbing out of data are left out, each named.
run_pdx -R exec -w h1 push --safe-links "$hub" "$data" "$SCRATCH/safe/"
expect_status 0
expect_contains "$err" "pdx: warning: $data/absolute -> /etc/hostname: symlink out of its source, not sent (--safe-links)"
expect_contains "$err" "pdx: warning: $data/climbs -> ../outside: symlink out of its source"
expect_lines "$err" 2 "warnings"
expect_eq "$(links "$SCRATCH/safe/data")" "$(printf 'dangling -> does/not/exist\nlatest -> v3')" "safe links"
expect_eq "$(links "$SCRATCH/safe/models--org--tiny")" "$(links "$hub")" "the hub cache's links are safe"
