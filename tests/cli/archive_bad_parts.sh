# A missing part, parts out of order, a truncated or corrupt part, the wrong format: one error
# naming the part, non-zero exit, and no half-written file under its final name.
source "$PDX_SRC/tests/lib/archive_common.sh"
make_tree src
head -c 2000000 /dev/urandom >src/big.bin
for format in tar.gz tar.zst tar.xz tar.bz2 tar; do
  rm -rf p && mkdir p
  "$PDX" pack src -o "p/a.$format" --split 500K -a 1
  parts=(p/a.$format.part-*)
  [ ${#parts[@]} -ge 4 ] || fail "$format: expected 4 or more parts, got ${#parts[@]}"
  n=${#parts[@]}

  expect_error 2 "missing part p/a.$format.part-1 \(before p/a.$format.part-2\)" \
    "$PDX" unpack "p/a.$format.part-0" "p/a.$format.part-2" "p/a.$format.part-3" -C x
  expect_error 2 "parts out of order: p/a.$format.part-1 is given as part 0" \
    "$PDX" unpack "p/a.$format.part-1" "p/a.$format.part-0" "p/a.$format.part-2" -C x
  expect_error 2 "missing part p/a.$format.part-0" \
    "$PDX" unpack "p/a.$format.part-1" "p/a.$format.part-2" -C x

  # The last part missing: refused before anything is unpacked (tar.gz and tar.zst parts say
  # which is the last; the set file beside the others lists it).
  last=$((n - 1))
  mv "p/a.$format.part-$last" p/away
  expect_error 2 "(p/a.$format.part-$((last - 1)): .*not its last: part $last and any after it are missing|missing part p/a.$format.part-$last: p/a.$format-set lists $n parts)" \
    "$PDX" unpack "p/a.$format" -C x
  [ ! -e x ] || fail "$format: something was written in x"

  # A truncated last part.
  head -c 1000 p/away >"p/a.$format.part-$last"
  expect_error 2 "p/a.$format.part-$last: .*[Tt]runcated" "$PDX" unpack "p/a.$format" -C y
  [ ! -e y ] || fail "$format: something was written in y"

  # Without a set file (parts of an older pdx, or of split(1)), the stream ends early, in the
  # part before.
  if [ -e "p/a.$format-set" ]; then
    mv "p/a.$format-set" p/set
    rm "p/a.$format.part-$last"
    expect_error 2 "p/a.$format.part-$((last - 1)): .*(ends early|[Tt]runcated)" "$PDX" unpack "p/a.$format" -C x
    [ ! -e x ] || no_temp_files x # nothing half-written
    rm -rf x
    mv p/set "p/a.$format-set"
  fi
  mv p/away "p/a.$format.part-$last"
done

# Corrupt bytes inside a compressed part: the checksum at the end of the stream catches them.
for format in tar.gz tar.zst tar.bz2 tar.xz; do
  "$PDX" pack src -o "c.$format" --split 500K -a 1
  printf 'CORRUPT' | dd of="c.$format.part-1" bs=1 seek=1000 conv=notrunc status=none
  expect_error 2 "c.$format.part-[0-9]: .*(corrupt|checksum|data check)" "$PDX" unpack "c.$format" -C z
  [ ! -e z ] || no_temp_files z  # refused before anything was made, or nothing half-written
done

# Parts swapped on disk (names in order, content not).
"$PDX" pack src -o s.tar.gz --split 500K -a 1
mv s.tar.gz.part-1 tmp && mv s.tar.gz.part-2 s.tar.gz.part-1 && mv tmp s.tar.gz.part-2
expect_error 2 "s.tar.gz.part-[0-9]: " "$PDX" unpack s.tar.gz -C w
[ ! -e w ] || no_temp_files w

# Not an archive; an empty file; no such file or parts.
echo "just text" >notes.tar.gz
expect_error 2 "notes.tar.gz: not a tar or zip archive \(Unrecognized archive format\)" "$PDX" unpack notes.tar.gz -C v
: >empty.tar
expect_error 2 "empty.tar: not a tar or zip archive \(empty\)" "$PDX" unpack empty.tar -C v
expect_error 2 "nothing.tar: no such file, and no parts nothing.tar.part-0" "$PDX" unpack nothing.tar -C v
# Two files claiming one index.
cp s.tar.gz.part-1 s.tar.gz.part-01
expect_error 2 "s.tar.gz.part-1 and s.tar.gz.part-01 are both part 1" "$PDX" unpack s.tar.gz -C u
echo ok
