# -o - writes the archive to stdout (listing on stderr with -v); "-" unpacks stdin; -v lists.
source "$PDX_SRC/tests/lib/archive_common.sh"
make_tree src
mkdir x && "$PDX" pack src -o - --format tar.xz -v 2>list | xz -dc | tar -x -C x
same_tree src x/src
grep -qx 'src/sub/numbers.txt' list || fail "-v with -o - lists nothing on stderr"
"$PDX" pack src -o a.tar.zst -v >list2
[ "$(grep -c . list2)" -ge 10 ] || fail "-v lists too little: $(cat list2)"
"$PDX" pack src -o - --format zip >a.zip && unzip -tq a.zip >/dev/null || fail "zip to stdout"
"$PDX" unpack - -C y <a.tar.zst
same_tree src y/src
"$PDX" unpack a.tar.zst -C z -v >list3
grep -qx 'src/sub/numbers.txt' list3 || fail "unpack -v lists nothing"
# The padding after the end blocks may come late (a host's tar flushing its last record over a
# slow link): unpack reads on to the end of its input, so its writer is not cut off (EPIPE).
tar -b 1 -cf cut.tar -C y src  # records of one block: nothing after the end blocks
status=0
{ cat cut.tar; sleep 0.5; head -c 9216 /dev/zero; } | "$PDX" unpack - -C late || status=$?
[ "$status" = 0 ] || fail "the writer of the late padding was cut off (pipeline status $status)"
same_tree src late/src
echo ok
