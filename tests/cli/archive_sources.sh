# Sources: missing, unreadable, absolute and ../ names, several at once.
source "$PDX_SRC/tests/lib/archive_common.sh"
make_tree src
mkdir -p deep/inner && echo two >deep/inner/two
expect_error 2 "nope: no such file or directory" "$PDX" pack src nope -o a.tar
[ ! -e a.tar ] || fail "an archive was written for a missing source"

# Several sources, an absolute one and one with ../: stored as tar stores them.
(cd deep && "$PDX" pack ../src "$WORK/deep/inner" -o ../b.tar.gz 2>../warn)
grep -q "removing leading '../'" warn && grep -q "removing leading '/'" warn || fail "no warning: $(cat warn)"
tar -tzf b.tar.gz >list
grep -qx 'src/sub/numbers.txt' list && grep -qx "${WORK#/}/deep/inner/two" list || fail "names: $(cat list)"

# The archive inside the directory packed: never packed into itself.
(cd src && "$PDX" pack . -o self.tar.gz 2>../warn-self && "$PDX" pack . -o self.tar --split 100K -a 2)
grep -q "is the archive being written; not packed" warn-self || fail "no warning: $(cat warn-self)"
tar -tzf src/self.tar.gz >list-self
grep -q 'self\.tar\.gz' list-self && fail "the archive packed itself"
grep -qx './sub/numbers.txt' list-self || fail "src not packed: $(cat list-self)"
cat src/self.tar.part-* | tar -t >list-parts
grep -q 'self\.tar\.part' list-parts && fail "the parts packed themselves"
grep -qx './self.tar.gz' list-parts || fail "the other archive is missing: $(cat list-parts)"

# A file the user cannot read: an error naming it, and no archive left behind.
if [ "$(id -u)" = 0 ]; then
  public=$(mktemp -d /tmp/pdx-archive-nobody.XXXXXX)
  trap 'rm -rf "$WORK" "$public"' EXIT
  cp -r src "$public/" && cp "$PDX" "$public/" && chown -R nobody "$public"
  chown root "$public/src/sub/numbers.txt" && chmod 600 "$public/src/sub/numbers.txt"
  (cd "$public" && expect_error 1 "src/sub/numbers.txt: cannot read: Permission denied" \
    setpriv --reuid=nobody --regid=nogroup --clear-groups ./pdx pack src -o c.tar.gz)
  [ -z "$(ls -A "$public" | grep 'c\.tar')" ] || fail "archive left after a read error: $(ls -A "$public")"
fi
echo ok
