# Entries that would land outside -C are refused, with one error naming the entry, exit 1, and
# nothing written outside the directory.
source "$PDX_SRC/tests/lib/archive_common.sh"
mkdir outside
tar_of dotdot 'add("ok.txt"); add("a/../../outside/dotdot.txt")'
tar_of absolute "add('$WORK/outside/absolute.txt')"
tar_of symlink "add('l', kind=tarfile.SYMTYPE, link='$WORK/outside'); add('l/through.txt')"
tar_of hardlink 'add("h", kind=tarfile.LNKTYPE, link="../outside/target")'
tar_of device 'add("null", kind=tarfile.CHRTYPE)'
tar_of dirfirst 'add("sub", kind=tarfile.DIRTYPE, mode=0o700); add("sub/f"); add("../late.txt")'

expect_error 2 "dotdot.tar: entry a/../../outside/dotdot.txt: .*'\.\.' refused" "$PDX" unpack dotdot.tar -C x1
expect_error 2 "absolute.tar: entry $WORK/outside/absolute.txt: absolute path refused" "$PDX" unpack absolute.tar -C x2
expect_error 2 "symlink.tar: entry l/through.txt: refused: l is a symlink" "$PDX" unpack symlink.tar -C x3
expect_error 2 "hardlink.tar: hard link h to ../outside/target: .*refused" "$PDX" unpack hardlink.tar -C x4
[ -z "$(ls -A outside)" ] || fail "something was written outside: $(ls -A outside)"
# The entry before the bad one was extracted; nothing is left half-written.
[ -f x1/ok.txt ] || fail "entries before a refused one are not extracted"
# A failed run still sets the modes of the directories it made -- there, not in the caller's
# directory, where a directory of the same name must stay as it was.
mkdir sub && chmod 755 sub
expect_error 2 "dirfirst.tar: entry ../late.txt" "$PDX" unpack dirfirst.tar -C x0
[ "$(stat -c %a sub)" = 755 ] || fail "the caller's ./sub was changed to $(stat -c %a sub)"
[ "$(stat -c %a x0/sub)" = 700 ] || fail "x0/sub has mode $(stat -c %a x0/sub), not 700"
no_temp_files .

# Device files: only root may unpack them. As root, see the refusal as nobody (in a directory
# nobody can reach, with a copy of pdx nobody can run).
if [ "$(id -u)" = 0 ]; then
  public=$(mktemp -d /tmp/pdx-archive-nobody.XXXXXX)
  trap 'rm -rf "$WORK" "$public"' EXIT
  chown nobody "$public" && cp "$PDX" device.tar "$public/" && chmod o+r "$public/device.tar"
  (cd "$public" && expect_error 2 "device.tar: entry null is a device file; refused" \
    setpriv --reuid=nobody --regid=nogroup --clear-groups ./pdx unpack device.tar -C x5)
  [ ! -e "$public/x5/null" ] || fail "device file created as non-root"
else
  expect_error 2 "device.tar: entry null is a device file; refused" "$PDX" unpack device.tar -C x5
fi
if [ "$(id -u)" = 0 ]; then
  "$PDX" unpack device.tar -C x6 && [ -c x6/null ] || fail "root cannot unpack a device file"
fi
echo ok
