# A pax header over libarchive's 1 MiB (huge extended attributes, a huge comment, a global
# header) unpacks as GNU tar extracts it: pdx drops the records it does not use. Plain, through
# gzip, from stdin and from split parts; a header whose needed records pass 1 MiB, or that is cut
# short, is an error (exit 2).
source "$PDX_SRC/tests/lib/archive_common.sh"
python3 - <<'PY'
import io, tarfile
big = "v" * (2 << 20)
def add(t, name, data, headers):
    i = tarfile.TarInfo(name); i.size = len(data); i.mtime = 1234567890.25; i.mode = 0o640
    i.pax_headers = headers
    t.addfile(i, io.BytesIO(data))
with tarfile.open("big.tar", "w", format=tarfile.PAX_FORMAT, pax_headers={"comment": big}) as t:
    d = tarfile.TarInfo("d"); d.type = tarfile.DIRTYPE; d.mode = 0o755; d.mtime = 1234567890
    t.addfile(d)
    add(t, "d/before", b"before\n", {})
    add(t, "d/xattr", b"x" * 5000, {"SCHILY.xattr.user.big": big, "SCHILY.xattr.user.b2": big})
    add(t, "d/comment", b"comment\n", {"comment": big, "path": "d/" + "long" * 60})
    add(t, "d/libarchive", b"y\n", {"LIBARCHIVE.xattr.user.z": big, "SCHILY.acl.access": big})
    add(t, "d/after", b"z" * 3000000, {})
with tarfile.open("toolong.tar", "w", format=tarfile.PAX_FORMAT) as t:
    add(t, "p" * 1100000, b"1\n", {"comment": big})
PY
mkdir gnu && tar --warning=no-unknown-keyword -xf big.tar -C gnu
[ -f gnu/d/xattr ] && [ -f "gnu/d/$(printf 'long%.0s' $(seq 60))" ] || fail "GNU tar did not extract the test archive"
"$PDX" unpack big.tar -C plain
same_tree gnu plain
gzip -c big.tar >big.tar.gz
"$PDX" unpack big.tar.gz -C gz
same_tree gnu gz
"$PDX" unpack - -C stdin <big.tar.gz
same_tree gnu stdin
split -b 700000 -d big.tar big.tar.part-
"$PDX" unpack big.tar.part- -C parts
same_tree gnu parts
# What pdx needs is over 1 MiB (a path that long): said so, nothing unpacked.
expect_error 2 "toolong.tar: the pax header at byte 0 holds more than 1 MiB of records pdx needs.*GNU tar can" \
  "$PDX" unpack toolong.tar -C x1
# Cut short inside the oversize header.
head -c 1500000 big.tar >cut.tar
expect_error 2 "cut.tar: the archive ends early in the pax header at byte 0 .*truncated" \
  "$PDX" unpack cut.tar -C x2
[ -z "$(ls -A x2 2>/dev/null)" ] || fail "a truncated archive unpacked something: $(ls -A x2)"
echo ok
