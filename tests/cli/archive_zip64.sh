# A file over 4 GiB: zip64 in zip (read back by unzip and pdx), sparse in tar (read back by GNU
# tar). The file is sparse, so this needs little disk and about 15 seconds.
source "$PDX_SRC/tests/lib/archive_common.sh"
size=4508876800 # 4300 MiB
mkdir src
truncate -s "$size" src/big
echo "past 4 GiB" | dd of=src/big bs=1 seek=4400000000 conv=notrunc status=none
echo small >src/small
big_ok() {  # big_ok FILE: the right size, sparse, and the bytes past 4 GiB in place
  [ "$(stat -c %s "$1")" = "$size" ] && [ "$(stat -c %b "$1")" -lt 1000 ] &&
    [ "$(dd if="$1" bs=1 skip=4400000000 count=11 status=none)" = "past 4 GiB" ]
}
"$PDX" pack src -o a.zip --level 1
unzip -lv a.zip >listing
grep -q "$size .*src/big" listing || fail "unzip does not list the 4.2 GiB entry: $(cat listing)"
"$PDX" unpack a.zip -C x
big_ok x/src/big || fail "zip64 round trip differs"
"$PDX" pack src -o a.tar
[ "$(stat -c %s a.tar)" -lt 100000 ] || fail "sparse file stored whole in tar"
mkdir g && tar -xf a.tar -C g
big_ok g/src/big || fail "GNU tar reads the sparse file wrong"
echo ok
