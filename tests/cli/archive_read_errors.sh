# Read errors say what is wrong, where: the part, the entry (or the one before), the real cause;
# exit 2 (the input is not a valid archive).
source "$PDX_SRC/tests/lib/archive_common.sh"
# A damaged tar header: an error, not an entry with an empty name.
tar_of t 'add("first", b"1\n"); add("second", b"2\n"); add("third", b"3\n")'
python3 - <<'PY'
import tarfile
t = tarfile.open("t.tar"); third = [m for m in t.getmembers() if m.name == "third"][0]
d = bytearray(open("t.tar", "rb").read()); d[third.offset + 10] ^= 0x55
open("bad.tar", "wb").write(d)
PY
expect_error 2 "bad.tar: after entry second: Damaged tar archive: the archive is corrupt" "$PDX" unpack bad.tar -C x1
# The same inside gzip whose CRC is wrong too: the decoder's finding is the cause reported.
gzip -c bad.tar >bad.tar.gz
python3 -c "
d = bytearray(open('bad.tar.gz', 'rb').read()); d[-8] ^= 0xff; open('bad.tar.gz', 'wb').write(d)"
expect_error 2 "bad.tar.gz: gzip data is corrupt \(incorrect data check\)" "$PDX" unpack bad.tar.gz -C x2
# A whole, valid tar in gzip whose closing CRC32 alone is wrong: an error too, from a file and from
# a pipe (the check comes after the tar's end blocks: unpack reads on to it).
tar_of good 'add("only", b"1\n" * 5000)'
gzip -c good.tar >crc.tar.gz
python3 -c "
d = bytearray(open('crc.tar.gz', 'rb').read()); d[-8] ^= 0xff; open('crc.tar.gz', 'wb').write(d)"
expect_error 2 "crc.tar.gz: gzip data is corrupt \(incorrect data check\)" "$PDX" unpack crc.tar.gz -C x5
expect_error 2 "gzip data is corrupt \(incorrect data check\)" "$PDX" unpack - -C x6 <crc.tar.gz
# A zip entry whose data does not match its CRC: corrupt, naming the entry, not "ends early".
mkdir src && seq 1 20000 >src/numbers && (cd src && zip -q ../z.zip numbers)
python3 - <<'PY'
import zipfile
i = zipfile.ZipFile("z.zip").infolist()[0]
d = bytearray(open("z.zip", "rb").read()); d[i.header_offset + 30 + len(i.filename) + len(i.extra) + 100] ^= 0xff
open("z.zip", "wb").write(d)
PY
expect_error 2 "z.zip: entry numbers: .*the archive is corrupt" "$PDX" unpack z.zip -C x3
grep -q "ends early" "$WORK/err" && fail "a bad CRC reported as truncation: $(cat "$WORK/err")"
# A GNU long name over libarchive's 1 MiB: said so, not "corrupt" (a pax header that big is
# shrunk: archive_big_pax_header.sh).
python3 - <<'PY'
import io, tarfile
with tarfile.open("biglong.tar", "w", format=tarfile.GNU_FORMAT) as t:
    i = tarfile.TarInfo("n" * 1100000); i.size = 2
    t.addfile(i, io.BytesIO(b"a\n"))
PY
expect_error 2 "biglong.tar: at its start: a GNU long-name \(or other special\) header over 1 MiB.*GNU tar can" "$PDX" unpack biglong.tar -C x4
# pack: a path longer than PATH_MAX is said to be that, not a permission problem.
long=$(printf 'x%.0s' $(seq 250))
mkdir deep && (cd deep && for i in $(seq 17); do mkdir "$long" && cd "$long"; done && echo x >f)
expect_error 1 "cannot read: File name too long \([0-9]+ bytes; the system takes 4096 at most\); pack it from a directory nearer to it" \
  "$PDX" pack deep -o deep.tar
grep -q permissions "$WORK/err" && fail "long path blamed on permissions"
echo ok
