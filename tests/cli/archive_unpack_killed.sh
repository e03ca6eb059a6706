# Unpack killed (SIGKILL) in the middle of a file: nothing of that file is left, under its final
# name or any other -- it is written with no name at all until complete (O_TMPFILE) -- and the
# files before it are complete: many small ones too, which unpack's writer threads finish while
# big.bin waits for its data.
source "$PDX_SRC/tests/lib/archive_common.sh"
mkdir -p src/a && echo small >src/a.txt && head -c 20000000 /dev/urandom >src/big.bin
for i in $(seq 2000); do echo "$i" >"src/a/$i"; done
for format in tar tar.zst; do
  "$PDX" pack src -o "a.$format"
  rm -rf out fifo && mkfifo fifo
  "$PDX" unpack - -C out <fifo &
  pid=$!
  exec 3>fifo
  # Half the archive, then nothing more: pdx waits for the rest with big.bin half-written.
  head -c "$(($(stat -c %s "a.$format") / 2))" "a.$format" >&3
  # big.bin is the file open in out/src, unnamed or under a temporary name, once a.txt is there.
  for _ in $(seq 100); do
    open=$(ls -l "/proc/$pid/fd" 2>/dev/null |
      grep -Eo "$WORK/out/src/(#[0-9]+ \(deleted\)|\.big\.bin\.pdx-.*)$" || true)
    [ -n "$open" ] && [ -e out/src/a.txt ] && [ "$(ls out/src/a | wc -l)" = 2000 ] && break
    sleep 0.1
  done
  [ -n "$open" ] || fail "$format: pdx never opened big.bin"
  echo "$format: killed while writing $open"
  kill -KILL "$pid"
  { wait "$pid"; } 2>/dev/null || true
  exec 3>&-
  [ "$(cat out/src/a.txt)" = small ] || fail "$format: a.txt, before big.bin, is not complete"
  diff -r src/a out/src/a >/dev/null || fail "$format: the small files before big.bin are not complete"
  [ ! -e out/src/big.bin ] || fail "$format: a half-written big.bin is under its final name"
  case $open in
    *.pdx-*) echo "$format: no O_TMPFILE here, a temporary name is left: not checked" ;;
    *) no_temp_files out ;;
  esac
done
echo ok
