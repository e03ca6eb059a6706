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
# Parts: cat joins them back into an archive GNU tar reads (tar.gz and tar.zst parts begin with
# a part header the decoders skip; GNU tar still tells the format from the first bytes).
for j in 1 3; do
  "$PDX" pack src -o p$j.tar.gz --split 64K -j $j
  cat p$j.tar.gz.part-* >joined$j.tar.gz && check_tar joined$j.tar.gz -z && gzip -t joined$j.tar.gz
  check_tar joined$j.tar.gz ""
  "$PDX" pack src -o p$j.tar.zst --split 64K -j $j
  cat p$j.tar.zst.part-* >joined$j.tar.zst && check_tar joined$j.tar.zst --zstd
  zstd -tq joined$j.tar.zst && check_tar joined$j.tar.zst ""
  mkdir "c$j" && cat p$j.tar.zst.part-* | tar --zstd -x -C "c$j" && same_tree src "c$j/src"
  mkdir "d$j" && cat p$j.tar.gz.part-* | gzip -d | tar -x -C "d$j" && same_tree src "d$j/src"
done
# Parts of tar, tar.xz, tar.bz2 and zip are the archive cut at every SIZE bytes, nothing added:
# cat joins them back, by either glob; their set file lies beside them, outside those globs.
for format in tar tar.xz tar.bz2 zip; do
  "$PDX" pack src -o "q.$format" --split 64K -j 2
  [ -s "q.$format-set" ] || fail "no set file q.$format-set"
  cat q.$format.* >"c.$format"
  cat q.$format.part-* | cmp - "c.$format" || fail "q.$format.* is not q.$format.part-*"
done
check_tar c.tar ""
check_tar c.tar.xz -J && xz -t c.tar.xz
check_tar c.tar.bz2 -j && bzip2 -t c.tar.bz2
mkdir cz && cat q.tar.xz.part-* | xz -d | tar -x -C cz && same_tree src cz/src
unzip -tq c.zip >/dev/null || fail "unzip -t fails on cat of zip parts"
# Standard output.
"$PDX" pack src -o - --format tar.zst | zstd -dc | tar -t >list
grep -qx 'src/sub/numbers.txt' list || fail "pack -o - output not read by tar"
echo ok
