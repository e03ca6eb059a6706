# Formats pdx does not read are refused by name, with exit 2, and nothing unpacked: an ISO 9660
# image (its 32 KiB of zeros read as an empty tar), lzip, lz4, lzop, compress, 7z, RAR, ar --
# also inside a compression pdx reads. Samples are their magic bytes, made here, so the test
# needs none of those tools; where a tool is installed, its own output is refused too.
source "$PDX_SRC/tests/lib/archive_common.sh"
python3 - <<'PY'
def write(name, data):
    open(name, "wb").write(data)
iso = bytearray(64 << 10)
iso[32768:32774] = b"\x01CD001"
write("img.iso", bytes(iso))
write("a.tlz", b"LZIP\x01\x0c" + bytes(64))
write("a.tar.lz4", b"\x04\x22\x4d\x18\x64\x40\xa7" + bytes(64))
write("a.tar.lzo", b"\x89LZO\x00\r\n\x1a\n" + bytes(64))
write("a.tar.Z", b"\x1f\x9d\x90" + bytes(64))
write("a.7z", b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(64))
write("a.rar", b"Rar!\x1a\x07\x01\x00" + bytes(64))
write("a.deb", b"!<arch>\ndebian-binary   " + bytes(64))
PY
check() {  # check FILE WHAT
  rm -rf x
  expect_error 2 "^pdx: error: $1: not a tar or zip archive \(looks like $2\); pdx reads tar, zip and cpio" \
    "$PDX" unpack "$1" -C x
  [ ! -e x ] || fail "$1: unpacked into x: $(ls -A x)"
}
check img.iso "ISO 9660"
check a.tlz "lzip compressed data"
check a.tar.lz4 "lz4 compressed data"
check a.tar.lzo "lzop compressed data"
check a.tar.Z "compress \(\.Z\) data"
check a.7z "a 7z archive"
check a.rar "a RAR archive"
check a.deb "an ar archive"
# Inside a compression pdx reads, and through parts.
gzip -c img.iso >img.iso.gz
check img.iso.gz "ISO 9660"
xz -c img.iso >img.iso.xz
split -d -b 4000 img.iso.xz img.iso.xz.part-
check img.iso.xz "ISO 9660"
check img.iso.xz.part-00 "ISO 9660"

# The real tools' output, where they are installed.
mkdir src && seq 1 1000 >src/f && tar -cf real.tar src
if command -v genisoimage >/dev/null; then genisoimage -quiet -o real.iso src && check real.iso "ISO 9660"; fi
if command -v lzip >/dev/null; then lzip -c real.tar >real.tlz && check real.tlz "lzip compressed data"; fi
if command -v lz4 >/dev/null; then lz4 -q -c real.tar >real.tar.lz4 && check real.tar.lz4 "lz4 compressed data"; fi
if command -v lzop >/dev/null; then lzop -c real.tar >real.tar.lzo && check real.tar.lzo "lzop compressed data"; fi
if command -v 7z >/dev/null; then 7z a -bd -bso0 real.7z src && check real.7z "a 7z archive"; fi

# What pdx does read still unpacks: cpio (newc), and a tar whose first file is an ISO image.
(cd src && echo f | cpio -o -H newc --quiet >../real.cpio) 2>/dev/null || python3 - <<'PY'
data = b"x\n"
hdr = "070701" + "".join("%08X" % v for v in (1, 0o100644, 0, 0, 1, 0, len(data), 0, 0, 0, 0, 2, 0))
def pad(b): return b + bytes(-len(b) % 4)
out = pad(hdr.encode() + b"f\0") + pad(data)
trailer = "070701" + "".join("%08X" % v for v in (0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 11, 0))
out += pad(trailer.encode() + b"TRAILER!!!\0")
open("real.cpio", "wb").write(out + bytes(512 - len(out) % 512))
PY
"$PDX" unpack real.cpio -C cpio-out
[ -f cpio-out/f ] || fail "cpio: f not unpacked"
tar -cf iso-inside.tar img.iso
"$PDX" unpack iso-inside.tar -C iso-out
cmp -s iso-out/img.iso img.iso || fail "a tar holding an ISO image did not unpack it"
echo ok
