# Sourced by common.sh and archive_common.sh.
# flip_byte FILE OFFSET: the byte at OFFSET changed to another value (a fixed byte written over
# random data is no change once in 256 runs).
flip_byte() {
  local byte
  byte=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $(((byte + 1) % 256)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
