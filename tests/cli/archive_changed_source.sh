# A file that shrinks while it is packed: a warning naming it, the archive still written (the
# file padded to its header's size, as tar does), exit status 1.
source "$PDX_SRC/tests/lib/archive_common.sh"
mkdir src && head -c 100000000 /dev/urandom >src/shrinking.bin && echo ok >src/other.txt
# zstd -19 takes many seconds for 100 MB of random bytes: the file is cut while being read.
"$PDX" pack src -o a.tar.zst --level 19 -j 1 2>err &
pid=$!
sleep 0.5
truncate -s 1000 src/shrinking.bin
status=0
wait "$pid" || status=$?
[ "$status" = 1 ] || fail "exit status $status, not 1: $(cat err)"
grep -q "pdx: warning: src/shrinking.bin: file changed as we read it" err || fail "no warning: $(cat err)"
grep -q "^pdx: error: a.tar.zst: 1 file(s) changed while read" err || fail "no error line: $(cat err)"
tar --zstd -tvf a.tar.zst | grep -q ' 100000000 .*src/shrinking.bin' || fail "archive not complete"
echo ok
