# On a terminal pack and unpack draw a progress line on stderr; off a terminal they do not.
source "$PDX_SRC/tests/lib/archive_common.sh"
command -v script >/dev/null || { echo "skipped: no script(1)"; exit 0; }
mkdir src && head -c 150000000 /dev/urandom >src/random.bin
script -qec "'$PDX' pack src -o a.tar.gz -j 1 --level 9" /dev/null >tty.out
grep -aq 'pdx: .* of .* in, .* out, .*/s' tty.out || fail "no progress line on a terminal: $(head -c 300 tty.out)"
"$PDX" pack src -o b.tar.gz -j 1 2>err
[ ! -s err ] || fail "progress or other output off a terminal: $(cat err)"
echo ok
