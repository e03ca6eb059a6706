# What GNU tar, split, pigz, zstd, xz, bzip2 and zip write, pdx unpacks -- parts too.
source "$PDX_SRC/tests/lib/archive_common.sh"
make_tree src
check() {  # check ARCHIVE-OR-PREFIX...
  local dir="x-$(basename "$1")"
  "$PDX" unpack "$@" -C "$dir" || fail "pdx cannot unpack $*"
  same_tree src "$dir/src"
}
tar -cf a.tar src && check a.tar
tar -czf a.tar.gz src && check a.tar.gz
tar -cjf a.tar.bz2 src && check a.tar.bz2
tar -cJf a.tar.xz src && check a.tar.xz
tar -I 'zstd -T0' -cf a.tar.zst src && check a.tar.zst
tar -I pigz -cf b.tar.gz src && check b.tar.gz
tar -cf - src | gzip -c >c.tgz && check c.tgz
# Two gzip members one after the other are one stream to gzip -d, and so to pdx.
tar -cf whole.tar src
head -c 100000 whole.tar | gzip -c >m.tar.gz
tail -c +100001 whole.tar | gzip -c >>m.tar.gz && check m.tar.gz
zip -qry a.zip src && "$PDX" unpack a.zip -C x-zip && diff -r src x-zip/src >/dev/null ||
  fail "pdx cannot unpack zip's zip"
# The line from the issue: split -d -a 1 parts, by prefix, by glob, and from stdin.
mkdir data_tar
tar -czf - src | split -b 100K -d -a 1 - data_tar/data.tar.gz.part-
[ -e data_tar/data.tar.gz.part-2 ] || fail "split made too few parts"
check data_tar/data.tar.gz
check data_tar/data.tar.gz.part-
check data_tar/data.tar.gz.part-*
cat data_tar/data.tar.gz.part-* | "$PDX" unpack - -C x-stdin && same_tree src x-stdin/src
echo ok
