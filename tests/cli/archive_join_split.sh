# pdx split and pdx join, and both with GNU split and cat.
source "$PDX_SRC/tests/lib/archive_common.sh"
head -c 2500000 /dev/urandom >data.bin

"$PDX" split data.bin --size 1M
[ "$(ls data.bin.part-*)" = "$(printf 'data.bin.part-%s\n' 0 1 2)" ] || fail "split names: $(ls)"
[ "$(stat -c %s data.bin.part-0)" = 1048576 ] || fail "part-0 is not 1M"
cat data.bin.part-* | cmp - data.bin || fail "cat of pdx split parts differs"

"$PDX" join data.bin.part-* -o joined.bin && cmp joined.bin data.bin
"$PDX" join data.bin -o joined2.bin && cmp joined2.bin data.bin  # by prefix
"$PDX" join data.bin.part-* -o - | cmp - data.bin

# GNU split's parts, by glob and by split's prefix.
split -b 700K -d -a 1 data.bin gnu.part-
"$PDX" join gnu.part-* -o g1.bin && cmp g1.bin data.bin
"$PDX" join gnu.part- -o g2.bin && cmp g2.bin data.bin

# Checks: a missing part, an existing output, a missing file.
expect_error 2 "missing part data.bin.part-1" "$PDX" join data.bin.part-0 data.bin.part-2 -o x.bin
[ ! -e x.bin ] || fail "join wrote output despite a missing part"
expect_error 1 "joined.bin: already exists" "$PDX" join data.bin.part-* -o joined.bin
expect_error 2 "nope: No such file" "$PDX" split nope --size 1M
expect_error 2 "invalid size" "$PDX" split data.bin --size 0
"$PDX" split data.bin --size 1M -o pre && [ -e pre.part-2 ] || fail "split -o PREFIX"
echo ok
