# pack --manifest writes file count, bytes and each part's size and SHA-256; sha256sum -c
# checks it, and unpack --verify checks the parts before unpacking and the counts after.
source "$PDX_SRC/tests/lib/archive_common.sh"
make_tree src
mkdir parts
"$PDX" pack src -o parts/a.tar.zst --split 100K -a 1 --manifest parts/a.manifest
head -4 parts/a.manifest >head
printf '# pdx manifest 1\n# format tar.zst\n# files %s\n# bytes %s\n' \
  "$(find src -type f -links 1 | wc -l)" \
  "$(find src -type f -links 1 -printf '%s\n' | awk '{n += $1} END {print n + 5}')" >want
diff want head || fail "manifest header differs"  # + 5: one copy of the hard-linked file
(cd parts && sha256sum -c --quiet --strict a.manifest) || fail "sha256sum -c rejects the manifest"
[ "$(grep -c '^# part ' parts/a.manifest)" = "$(ls parts/a.tar.zst.part-* | wc -l)" ] ||
  fail "not one '# part' line per part"

"$PDX" unpack parts/a.tar.zst --verify parts/a.manifest -C ok
same_tree src ok/src

cp -r parts bad
flip_byte bad/a.tar.zst.part-1 10
cmp -s parts/a.tar.zst.part-1 bad/a.tar.zst.part-1 && fail "the corrupting write changed nothing"
expect_error 2 "bad/a.tar.zst.part-1: SHA-256 differs from the manifest's" \
  "$PDX" unpack bad/a.tar.zst --verify bad/a.manifest -C x1
[ ! -e x1 ] || fail "unpacked despite a part failing verification"
truncate -s 1000 bad/a.tar.zst.part-1
# (A tar.zst part ends where a frame does, a little short of the split size.)
expect_error 2 "bad/a.tar.zst.part-1: 1000 bytes, the manifest says $(stat -c %s parts/a.tar.zst.part-1)" \
  "$PDX" unpack bad/a.tar.zst --verify bad/a.manifest -C x2
last=$(ls parts/a.tar.zst.part-* | tail -1)
cp parts/a.tar.zst.part-1 bad/ && rm "bad/$(basename "$last")"
expect_error 2 "missing part $(basename "$last")" "$PDX" unpack bad/a.tar.zst --verify bad/a.manifest -C x3
echo "# pdx manifest 1" >bad/empty.manifest
expect_error 2 "bad/empty.manifest: the manifest lists no parts" \
  "$PDX" unpack parts/a.tar.zst --verify bad/empty.manifest -C x4

# One file, no split; an existing manifest is refused without --force.
"$PDX" pack src -o one.tar.gz -m one.manifest
sha256sum -c --quiet one.manifest && "$PDX" unpack one.tar.gz --verify one.manifest -C one
expect_error 2 "one.manifest: already exists" "$PDX" pack src -o two.tar.gz -m one.manifest
expect_error 2 "--manifest needs an archive file" "$PDX" pack src -o - --format tar -m m
echo ok
