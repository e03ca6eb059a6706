# Small files are written by threads while unpack reads on; what the archive's order means
# stays: a name given twice ends with the later entry, a hard link finds the file just before
# it, an entry that makes a symlink sees (and is seen by) the files before it, and a directory
# the file of its name.
source "$PDX_SRC/tests/lib/archive_common.sh"
mkdir outside

# The same name twice, small or big either way round, many files between or none: the last wins.
tar_of twice '
add("d/f", b"first\n"); add("d/f", b"second\n")
add("g", b"small\n")
for i in range(500): add("many/%d" % i, b"%d\n" % i)
add("g", b"again\n")
add("s", b"small\n"); add("s", big)
add("b", big); add("b", b"small\n")'
"$PDX" unpack twice.tar -C x1
[ "$(cat x1/d/f)" = second ] || fail "d/f is '$(cat x1/d/f)', not the later entry's"
[ "$(cat x1/g)" = again ] || fail "g is '$(cat x1/g)', not the later entry's"
[ "$(stat -c %s x1/s)" = $((3 << 20)) ] || fail "s is not the later, big entry"
[ "$(cat x1/b)" = small ] || fail "b is not the later, small entry"
[ "$(ls x1/many | wc -l)" = 500 ] && [ "$(cat x1/many/499)" = 499 ] || fail "many/ is incomplete"

# A hard link to a file queued just before it.
tar_of hardlink 'add("d/target", b"target\n"); add("d/link", kind=tarfile.LNKTYPE, link="d/target")'
"$PDX" unpack hardlink.tar -C x2
[ "$(cat x2/d/link)" = target ] || fail "the hard link does not have its target's content"
[ "$(stat -c %i x2/d/link)" = "$(stat -c %i x2/d/target)" ] || fail "d/link is not a hard link"

# A file replaced by a symlink out of the directory, then a file under that name: refused, and
# nothing written outside (the queued file must not land over the symlink afterwards).
tar_of symlink "add('x', b'file\n'); add('x', kind=tarfile.SYMTYPE, link='$WORK/outside'); add('x/f')"
expect_error 2 "symlink.tar: entry x/f: refused: x is a symlink" "$PDX" unpack symlink.tar -C x3
[ -L x3/x ] || fail "x is not the later entry, the symlink"
tar_of symdir "add('y/z', b'file\n'); add('y/z', kind=tarfile.SYMTYPE, link='$WORK/outside');
add('y/z/d', kind=tarfile.DIRTYPE)"
expect_error 2 "symdir.tar: entry y/z/d/: refused: y/z is a symlink" "$PDX" unpack symdir.tar -C x4
[ -z "$(ls -A outside)" ] || fail "something was written outside: $(ls -A outside)"

# A directory waits only for a file of its name, or of a name above it: a file then a directory
# of that name ends a directory; a directory under a file is refused, the file complete.
tar_of dirs 'add("p", b"file\n"); add("p", kind=tarfile.DIRTYPE); add("p/f", b"in\n")
for i in range(200): add("d%d" % i, kind=tarfile.DIRTYPE); add("d%d/f" % i, b"%d\n" % i)'
"$PDX" unpack dirs.tar -C x6
[ -d x6/p ] && [ "$(cat x6/p/f)" = in ] || fail "p is not the later entry, a directory"
for i in 0 99 199; do [ "$(cat "x6/d$i/f")" = "$i" ] || fail "d$i/f is not complete"; done
tar_of dirunder 'add("q", b"file\n"); add("q/r", kind=tarfile.DIRTYPE)'
expect_error 1 "dirunder.tar: entry q/r/: cannot create: Not a directory" "$PDX" unpack dirunder.tar -C x7
[ "$(cat x7/q)" = file ] || fail "q, before the refused entry, is not complete"

# A file, then a file under its name: refused as when the first was written at once.
tar_of under 'add("a", b"file\n"); add("a/b")'
expect_error 1 "under.tar: entry a/b: cannot make directory a: Not a directory" "$PDX" unpack under.tar -C x5
[ "$(cat x5/a)" = file ] || fail "a, before the refused entry, is not complete"
no_temp_files .
echo ok
