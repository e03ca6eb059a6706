# What pdx writes, GNU tar, cat, unzip, gzip, bzip2, xz and zstd read.
source "$PDX_SRC/tests/lib/archive_common.sh"
make_tree src
check_tar() {  # check_tar ARCHIVE TAR-OPTION
  mkdir -p "g-$1" && tar -x $2 -f "$1" -C "g-$1" || fail "GNU tar cannot read $1"
  same_tree src "g-$1/src"
}
"$PDX" pack src -o a.tar && check_tar a.tar ""
"$PDX" pack src -o a.tar.gz -j 2 && check_tar a.tar.gz -z && gzip -t a.tar.gz
"$PDX" pack src -o a.tar.bz2 && check_tar a.tar.bz2 -j && bzip2 -t a.tar.bz2
"$PDX" pack src -o a.tar.xz -j 2 && check_tar a.tar.xz -J && xz -t a.tar.xz
"$PDX" pack src -o a.tar.zst -j 2 && check_tar a.tar.zst --zstd && zstd -tq a.tar.zst
zstd -lv a.tar.zst 2>&1 | grep -q 'Check: XXH64' || fail "zstd frames carry no checksum"
"$PDX" pack src -o a.zip
unzip -tq a.zip >/dev/null || fail "unzip -t fails on pdx's zip"
# unzip rewrites control characters in names, so the name with a newline is left out.
mkdir u && (cd u && unzip -q ../a.zip)
diff -r -x "new*" src u/src >/dev/null || fail "unzip result differs"
# Parts: cat joins them back into an archive GNU tar reads.
"$PDX" pack src -o p.tar.gz --split 64K
cat p.tar.gz.part-* >joined.tar.gz && check_tar joined.tar.gz -z
# Standard output.
"$PDX" pack src -o - --format tar.zst | zstd -dc | tar -t >list
grep -qx 'src/sub/numbers.txt' list || fail "pack -o - output not read by tar"
echo ok
