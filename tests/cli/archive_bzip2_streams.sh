# pdx writes tar.bz2 as one bzip2 stream per block, compressed in parallel (as pbzip2 does):
# bzip2 -d, GNU tar and pdx itself read all the streams, with any number of threads.
source "$PDX_SRC/tests/lib/archive_common.sh"
make_tree src
seq 1 400000 >src/more-numbers.txt  # with random.bin, well over one 100 kB block at --level 1
for threads in 1 2 3; do
  "$PDX" pack src -o "a$threads.tar.bz2" --level 1 -j "$threads"
  streams=$(grep -c -a -o 'BZh1' "a$threads.tar.bz2" || true)
  [ "$streams" -gt 1 ] || fail "-j $threads: one bzip2 stream, expected one per block"
  bzip2 -t "a$threads.tar.bz2" || fail "-j $threads: bzip2 -t rejects the streams"
  mkdir "g$threads" && tar -xjf "a$threads.tar.bz2" -C "g$threads" || fail "GNU tar -j fails"
  same_tree src "g$threads/src"
  "$PDX" unpack "a$threads.tar.bz2" -C "p$threads"
  same_tree src "p$threads/src"
done
cmp <(bzip2 -dc a1.tar.bz2) <(bzip2 -dc a3.tar.bz2) || fail "the tar differs with the threads"
echo ok
