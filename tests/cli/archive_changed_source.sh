# A file that shrinks or grows while it is packed: a warning naming it, the archive still
# written with the size the file had when its header was (a shrunk file padded with zeros, a
# grown one cut, as GNU tar does), exit status 1, and GNU tar reads the archive.
source "$PDX_SRC/tests/lib/archive_common.sh"

# pack_changing FILE COMMAND: packs src into a.tar.zst while COMMAND changes src/FILE; checks
# the exit status and messages.
pack_changing() {
  local file=$1 change=$2 status=0
  rm -f a.tar.zst
  # zstd -19 takes many seconds for 100 MB of random bytes: the file changes while being read.
  "$PDX" pack src -o a.tar.zst --level 19 -j 1 2>err &
  local pid=$!
  sleep 0.5
  eval "$change"
  wait "$pid" || status=$?
  [ "$status" = 1 ] || fail "$file: exit status $status, not 1: $(cat err)"
  grep -q "pdx: warning: src/$file: file changed as we read it" err || fail "no warning: $(cat err)"
  [ "$(grep -c '^pdx: warning: ' err)" = 1 ] || fail "not one warning line: $(cat err)"
  grep -q "^pdx: error: a.tar.zst: 1 file(s) changed while read" err || fail "no error: $(cat err)"
  tar --zstd -tvf a.tar.zst >list || fail "$file: GNU tar cannot list the archive"
  grep -q " 100000000 .*src/$file" list || fail "$file: wrong size stored: $(cat list)"
  rm -rf x && mkdir x
  tar --zstd -xf a.tar.zst -C x || fail "$file: GNU tar cannot read the archive"
  cmp -s x/src/other.txt src/other.txt || fail "$file: the file after it is not intact"
}

mkdir src && echo ok >src/other.txt
head -c 100000000 /dev/urandom >src/shrinking.bin
pack_changing shrinking.bin "truncate -s 1000 src/shrinking.bin"
cmp -n 1000 x/src/shrinking.bin src/shrinking.bin || fail "shrunk file: its start differs"
rm src/shrinking.bin

head -c 100000000 /dev/urandom >src/growing.bin
cp src/growing.bin before.bin
pack_changing growing.bin "head -c 5000000 /dev/urandom >>src/growing.bin"
cmp x/src/growing.bin before.bin || fail "grown file: not cut to the size it had"
echo ok
