# Disk full while packing or unpacking: an error naming the file, nothing left half-written.
# Needs root to mount a small tmpfs; skipped otherwise.
source "$PDX_SRC/tests/lib/archive_common.sh"
if [ "$(id -u)" != 0 ] || ! mkdir full || ! mount -t tmpfs -o size=1m tmpfs full; then
  echo "skipped: cannot mount a tmpfs"
  exit 0
fi
trap 'umount "$WORK/full"; rm -rf "$WORK"' EXIT
mkdir src && head -c 3000000 /dev/urandom >src/random.bin
expect_error 1 "full/a.tar.gz: write failed: No space left on device" "$PDX" pack src -o full/a.tar.gz
expect_error 1 "No space left on device" "$PDX" pack src -o full/a.tar --split 512K
[ -z "$(ls -A full)" ] || fail "pack left files on the full disk: $(ls -A full)"
"$PDX" pack src -o a.tar
expect_error 1 "random.bin.*No space left on device" "$PDX" unpack a.tar -C full/x
[ ! -e full/x/src/random.bin ] || fail "a half-written file is under its final name"
no_temp_files full
# Small files, written by unpack's writer threads: the first failure is the one error line, and
# each file left is complete.
mkdir small && for i in $(seq 400); do head -c 4000 /dev/urandom >"small/f$i"; done
"$PDX" pack small -o small.tar
expect_error 1 "small/f[0-9]+: cannot [a-z ]+: No space left on device" "$PDX" unpack small.tar -C full/y
for file in full/y/small/*; do
  cmp -s "$file" "small/${file##*/}" || fail "$file is not complete"
done
no_temp_files full
echo ok
