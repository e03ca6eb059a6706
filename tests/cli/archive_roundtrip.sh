# Every format packs and unpacks back to the same tree, whole and split, with 1 and 2 threads.
source "$PDX_SRC/tests/lib/archive_common.sh"
make_tree src
for format in tar tar.gz tar.bz2 tar.xz tar.zst zip; do
  for threads in 1 2; do
    name=out-$threads.$format
    "$PDX" pack src -o "$name" -j "$threads"
    "$PDX" unpack "$name" -C "x-$name"
    [ "$format" = zip ] || same_tree src "x-$name/src"  # zip keeps no hard links or holes: below
    "$PDX" pack src -o "split-$name" -j "$threads" --split 100K
    parts=(split-$name.part-*)
    [ ${#parts[@]} -gt 1 ] || fail "$format: --split 100K made one part"
    "$PDX" unpack "split-$name" -C "y-$name"
    diff -r src "y-$name/src" >/dev/null || fail "$format split round trip differs"
    no_temp_files .
  done
done
# zip stores a hard link as a second copy and a sparse file whole; contents still match.
diff -r src x-out-1.zip/src >/dev/null || fail "zip round trip differs"
# The 5 MiB sparse file stays sparse in the archive and on unpacking.
[ "$(stat -c %s out-1.tar)" -lt 2000000 ] || fail "sparse file stored whole in tar"
[ "$(stat -c %b x-out-1.tar/src/sparse)" -lt 1000 ] || fail "sparse file unpacked whole"
echo ok
