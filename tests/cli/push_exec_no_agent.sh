# pdx push --no-agent: a tree with awkward names, and an archive's parts with --extract, go
# through the hosts' own sh and tar; pdx says so once, naming the hosts; nothing is left behind;
# a run again sends only what changed, as the agent does; a host without the archive's
# decompressor gets one line.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
make_tree "$SCRATCH/src"
warning="pdx: warning: h[1-3]: the agent cannot run there (--no-agent); pushing with the host's sh and tar (slower)"

for run in first again changed; do
  [[ $run == changed ]] && printf 'changed\n' > "$SCRATCH/src/it's \"quoted\""
  run_pdx -R exec -w 'h[1-3]' push --no-agent "$SCRATCH/src" "$SCRATCH/dest/%h/"
  expect_status 0
  case $run in
    first) expect_eq "$out" "pdx: h[1-3]: 3.0 MiB in 8 files" "summary ($run run)" ;;
    again) expect_eq "$out" "pdx: h[1-3]: up to date" "summary ($run run)" ;;
    changed) expect_eq "$out" "pdx: h[1-3]: 8 B in 1 file" "summary ($run run)" ;;
  esac
  expect_eq "$err" "$warning" "warning ($run run)"
  for h in h1 h2 h3; do same_tree "$SCRATCH/src" "$SCRATCH/dest/$h/src"; done
  [[ -z $(find "$SCRATCH/dest" -name '.push.pdx-*') ]] || fail "temporary directory left"
done
[[ ! -e $HOME/.cache/pdx && ! -e PWNED && ! -e $SCRATCH/dest/h1/PWNED ]] ||
  fail "an agent was deployed, or a name was run by a shell"

# One file as DEST; then into DEST when it is a directory.
run_pdx -R exec -w h1 push --no-agent "$SCRATCH/src/with space" "$SCRATCH/one/-f'x"
expect_status 0
cmp -s "$SCRATCH/src/with space" "$SCRATCH/one/-f'x" || fail "the file was not written as DEST"
mkdir "$SCRATCH/into"
run_pdx -R exec -w h1 push --no-agent "$SCRATCH/src/with space" "$SCRATCH/into"
cmp -s "$SCRATCH/src/with space" "$SCRATCH/into/with space" || fail "the file was not put in DEST"

(cd "$SCRATCH" && "$PDX" pack src -o data.tar.gz --split 1M) > /dev/null || fail "pack failed"
parts=("$SCRATCH"/data.tar.gz.part-*)
(( ${#parts[@]} > 1 )) || fail "expected several parts"
run_pdx -R exec -w 'h[1-3]' push --no-agent --extract "${parts[@]}" "$SCRATCH/out/%h"
expect_status 0
expect_eq "$out" "pdx: h[1-3]: 3.0 MiB in 8 files" "extract summary"
for h in h1 h2 h3; do same_tree "$SCRATCH/src" "$SCRATCH/out/$h/src"; done

# A host whose PATH has tar but no gzip.
mkdir "$SCRATCH/bin"
ln -s "$(command -v tar)" "$SCRATCH/bin/tar"
for tool in sh mkdir rm dirname cat; do ln -s "$(command -v "$tool")" "$SCRATCH/bin/$tool"; done
PATH=$SCRATCH/bin run_pdx -R exec -w h1 push --no-agent --extract "${parts[@]}" "$SCRATCH/nogz"
expect_status 1
expect_eq "$err" "$(printf '%s\n' "${warning/h\[1-3\]/h1}" "pdx: h1: gzip not found, needed to unpack the archive")" "missing gzip"
[[ -z $(ls -A "$SCRATCH/nogz") ]] || fail "a host without gzip was written to"
