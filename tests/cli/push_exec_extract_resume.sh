# pdx push --extract again to hosts that hold the set unpacked: up to date, nothing sent. The set
# is known by the pack id of tar.zst parts or of a tar.xz set's set file, by the -m manifest's part
# hashes, or else by the parts' own hashes (tar.xz parts without their set file); the same with
# --relay; a part changed since is refused by the set file, or without it is another set. From
# standard input there is nothing to know it by: it is always sent.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
make_tree "$SCRATCH/src"
cd "$SCRATCH" || fail "no scratch"
"$PDX" pack src -o data.tar.xz --split 1M > /dev/null || fail "pack failed"
"$PDX" pack src -o m.tar --split 1M -m m.manifest > /dev/null || fail "pack failed"

# pushed SET DEST ARGS...: pdx push --extract ARGS... to h[1-3] into DEST/%h
pushed() { run_pdx -R exec -w 'h[1-3]' push --extract "${@:3}" "$SCRATCH/$2/%h"; }

for set in xz m relay; do
  case $set in
    xz) args=(data.tar.xz.part-*) ;;
    m) args=(-m m.manifest m.tar.part-*) ;;
    relay) args=(--relay data.tar.xz.part-*) ;;
  esac
  pushed "$set" "$set" "${args[@]}"
  expect_status 0
  expect_eq "$out" "pdx: h[1-3]: 3.0 MiB in 8 files" "$set: first push"
  pushed "$set" "$set" "${args[@]}"
  expect_status 0
  expect_eq "$out" "pdx: h[1-3]: up to date" "$set: second push"
  for h in h1 h2 h3; do same_tree src "$set/$h/src"; done
done

# One host's file removed: that host alone unpacks again.
rm "xz/h2/src/plain"
pushed xz xz data.tar.xz.part-*
expect_status 0
expect_eq "$out" "$(printf '%s\n' "pdx: h[1,3]: up to date" "pdx: h2: 3.0 MiB in 8 files")" "one host changed"
same_tree src xz/h2/src

# A part changed (same size): not the part the set file lists, refused before any host is reached.
cp data.tar.xz.part-1 saved && flip_byte data.tar.xz.part-1 4000
pushed xz xz data.tar.xz.part-*
expect_status 2
expect_contains "$err" "pdx: error: data.tar.xz.part-1: not the part data.tar.xz-set lists"
for h in h1 h2 h3; do same_tree src "xz/$h/src"; done
# Without the set file (an older pdx's parts): another set, unpacked everywhere (and the damage
# shows).
mv data.tar.xz-set set.saved
pushed xz xz data.tar.xz.part-*
expect_status 1
[[ $out != *"up to date"* ]] || fail "a changed part taken for the set unpacked: $out"
mv set.saved data.tar.xz-set
cp saved data.tar.xz.part-1
pushed xz xz data.tar.xz.part-*
expect_eq "$out" "pdx: h[1-3]: 3.0 MiB in 8 files" "the set again"

# From standard input: sent each time.
cat data.tar.xz.part-* | "$PDX" -R exec -w 'h[1-3]' push --extract - "$SCRATCH/stdin/%h" > out.txt 2>&1 ||
  fail "push from stdin failed: $(cat out.txt)"
cat data.tar.xz.part-* | "$PDX" -R exec -w 'h[1-3]' push --extract - "$SCRATCH/stdin/%h" > out.txt 2>&1 ||
  fail "push from stdin failed: $(cat out.txt)"
expect_eq "$(cat out.txt)" "pdx: h[1-3]: 3.0 MiB in 8 files" "from stdin, again"
