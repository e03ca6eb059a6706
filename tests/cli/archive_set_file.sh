# Parts of tar, tar.xz, tar.bz2 and zip sets, and those pdx split cuts, carry nothing of their
# set: the set file beside them, OUT-set, lists each part's name, size and XXH3-128. The last
# part missing, a part of another pack of the same size, a part after the last, a truncated part:
# refused naming the part, exit 2, before anything is written (unpack, join). A set file that is
# malformed or of another set: one error line naming it, exit 2.
source "$PDX_SRC/tests/lib/archive_common.sh"
mkdir -p a/d b/d
head -c 1500000 /dev/urandom >a/d/data.bin
head -c 1500000 /dev/urandom >b/d/data.bin # the same layout, other bytes
nothing_written() {
  [ ! -e target ] || fail "$1: something was written in target: $(ls -R target)"
}
for format in tar tar.xz tar.bz2 zip; do
  rm -rf pa pb cut mixed long short target joined
  mkdir pa pb
  (cd a && "$PDX" pack d -o "../pa/x.$format" --split 256K -a 2)
  (cd b && "$PDX" pack d -o "../pb/x.$format" --split 256K -a 2)
  [ -f "pa/x.$format-set" ] || fail "$format: no set file beside the parts: $(ls pa)"
  parts=(pa/x.$format.part-*)
  n=${#parts[@]}
  [ "$n" -ge 4 ] || fail "$format: expected 4 or more parts, got $n"
  last=$(printf %02d $((n - 1)))
  # The globs the parts are cat with leave the set file out; one that sweeps it up is fine.
  [ "$(echo pa/x.$format.*)" = "${parts[*]}" ] || fail "$format: x.$format.* is not the parts"
  "$PDX" unpack pa/x.$format* -C target
  cmp target/d/data.bin a/d/data.bin || fail "$format: parts unpacked wrong"
  rm -rf target
  "$PDX" unpack "pa/x.$format-set" -C target # the set file names its parts
  cmp target/d/data.bin a/d/data.bin || fail "$format: parts unpacked wrong"
  rm -rf target

  # The last part missing: nothing else tells it is gone.
  cp -r pa cut && rm "cut/x.$format.part-$last"
  expect_error 2 "^pdx: error: missing part cut/x.$format.part-$last: cut/x.$format-set lists $n parts, $((n - 1)) given" \
    "$PDX" unpack "cut/x.$format" -C target
  nothing_written "$format, last part missing"
  expect_error 2 "missing part cut/x.$format.part-$last" "$PDX" join "cut/x.$format" -o joined
  [ ! -e joined ] || fail "$format: join wrote a file"

  # A part of the other pack, of the same size, as an interrupted pack --split --force leaves it.
  cp -r pa mixed && cp "pb/x.$format.part-01" mixed/
  expect_error 2 "^pdx: error: mixed/x.$format.part-01: not the part mixed/x.$format-set lists \(its XXH3-128 differs\)" \
    "$PDX" unpack "mixed/x.$format" -C target
  nothing_written "$format, a part of another pack"
  expect_error 2 "mixed/x.$format.part-01: not the part" "$PDX" join mixed/x.$format* -o joined
  [ ! -e joined ] || fail "$format: join wrote a file"

  # A part after the last (an older, longer set's), and a truncated part.
  cp -r pa long && cp "pb/x.$format.part-00" "long/x.$format.part-$(printf %02d "$n")"
  expect_error 2 "^pdx: error: long/x.$format.part-$(printf %02d "$n"): not a part of the set" \
    "$PDX" unpack "long/x.$format" -C target
  nothing_written "$format, a part after the last"
  cp -r pa short && truncate -s 1000 "short/x.$format.part-01"
  expect_error 2 "^pdx: error: short/x.$format.part-01: 1000 bytes, where short/x.$format-set lists 262144: the part is truncated" \
    "$PDX" unpack "short/x.$format" -C target
  nothing_written "$format, a truncated part"
done

# The set file of another set beside the parts; malformed, cut short, too large, a directory.
rm -rf other && cp -r pa other && cp pb/x.zip-set other/
expect_error 2 "other/x.zip.part-00: not the part other/x.zip-set lists" "$PDX" unpack other/x.zip -C target
nothing_written "another set's set file"
echo "not a set file" >other/x.zip-set
expect_error 2 "^pdx: error: other/x.zip-set: not a pdx set file" "$PDX" unpack other/x.zip -C target
head -n 3 pa/x.zip-set >other/x.zip-set
expect_error 2 "^pdx: error: other/x.zip-set:4: cut short" "$PDX" unpack other/x.zip -C target
sed 's/^part 262144 /part 2621x4 /' pa/x.zip-set >other/x.zip-set
expect_error 2 "^pdx: error: other/x.zip-set:3: not a line 'part SIZE" "$PDX" unpack other/x.zip -C target
sed 's/^part 262144 /part 999999999999999999 /' pa/x.zip-set >other/x.zip-set
expect_error 2 "other/x.zip.part-00: 262144 bytes, where other/x.zip-set lists 999999999999999999" \
  "$PDX" unpack other/x.zip -C target
truncate -s 17M other/x.zip-set
expect_error 2 "^pdx: error: other/x.zip-set: cannot read the set file: over 16 MiB" "$PDX" unpack other/x.zip -C target
rm other/x.zip-set && mkdir other/x.zip-set
expect_error 2 "^pdx: error: other/x.zip-set: cannot read the set file: is a directory" \
  "$PDX" unpack other/x.zip -C target
nothing_written "a bad set file"
# Without it, the parts are read unchecked, as those of an older pdx or of split(1).
rmdir other/x.zip-set
"$PDX" unpack other/x.zip -C target && cmp target/d/data.bin a/d/data.bin
rm -rf target

# pdx split writes the set file too (a tar.zst cut by split has no part headers), and join and
# unpack check it; pack and split replace it only with --force.
(cd a && "$PDX" pack d -o ../whole.tar.zst)
"$PDX" split whole.tar.zst --size 256K
[ -f whole.tar.zst-set ] || fail "split wrote no set file"
expect_error 1 "whole.tar.zst.part-0: already exists" "$PDX" split whole.tar.zst --size 256K
rm whole.tar.zst.part-*
expect_error 1 "whole.tar.zst-set: already exists" "$PDX" split whole.tar.zst --size 256K
"$PDX" split whole.tar.zst --size 300K --force
[ "$(grep -c '^part 307200 ' whole.tar.zst-set)" -ge 3 ] || fail "split --force kept the old set file"
mv whole.tar.zst.part-1 away
"$PDX" join whole.tar.zst.part-0 whole.tar.zst.part-2 -o joined 2>err && fail "join took a gap"
"$PDX" join whole.tar.zst.part-0 -o joined 2>err && fail "join took part 0 alone"
grep -q "missing part whole.tar.zst.part-1: whole.tar.zst-set lists" err || fail "$(cat err)"
mv away whole.tar.zst.part-1
"$PDX" join whole.tar.zst.part-* -o joined && cmp joined whole.tar.zst || fail "join of split's parts"
"$PDX" unpack whole.tar.zst-set -C target && cmp target/d/data.bin a/d/data.bin
echo ok
