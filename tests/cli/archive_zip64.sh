# A file over 4 GiB: zip64 in zip (read back by unzip and pdx), sparse in tar. The file is
# sparse, so this needs little disk and about 15 seconds.
source "$PDX_SRC/tests/lib/archive_common.sh"
mkdir src
truncate -s 4600M src/big
echo "past 4 GiB" | dd of=src/big bs=1 seek=4500000000 conv=notrunc status=none
echo small >src/small
"$PDX" pack src -o a.zip --level 1
unzip -lv a.zip >listing
grep -q '4823449600 .*src/big' listing || fail "unzip does not list the 4.6 GiB entry: $(cat listing)"
"$PDX" unpack a.zip -C x
cmp x/src/big src/big || fail "zip64 round trip differs"
[ "$(stat -c %b x/src/big)" -lt 1000 ] || fail "unpacked big file is not sparse"
"$PDX" pack src -o a.tar
[ "$(stat -c %s a.tar)" -lt 100000 ] || fail "sparse file stored whole in tar"
mkdir g && tar -xf a.tar -C g
[ "$(stat -c %s g/src/big)" = 4823449600 ] &&
  [ "$(dd if=g/src/big bs=1 skip=4500000000 count=11 status=none)" = "past 4 GiB" ] ||
  fail "GNU tar reads the sparse file wrong"
echo ok
