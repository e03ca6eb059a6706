# pack --split --force killed while it writes the new parts over an older set of the same
# layout: the set left unpacks to the old contents or the new, or is refused naming a part;
# never a mix of both.
source "$PDX_SRC/tests/lib/archive_common.sh"
mkdir -p old/d new/d
head -c 20000000 /dev/urandom >old/d/data.bin
head -c 20000000 /dev/urandom >new/d/data.bin
for format in tar tar.zst; do
  killed=0
  for attempt in 1 2 3 4 5; do
    rm -rf out && (cd old && "$PDX" pack d -o "../x.$format" --split 64K -a 4 --force)
    (cd new && exec "$PDX" pack d -o "../x.$format" --split 64K -a 4 --force -j 1) &
    pid=$!
    # Kill it once the second new part is being written, i.e. the first one is complete.
    until compgen -G ".x.$format.part-0001.pdx-*" >/dev/null || ! kill -0 $pid 2>/dev/null; do :; done
    kill -KILL $pid 2>/dev/null || true
    status=0 && wait $pid || status=$?
    [ $status -eq 137 ] || continue  # it finished first: try again
    killed=1
    status=0
    "$PDX" unpack "x.$format" -C out 2>err || status=$?
    if [ $status -eq 0 ]; then
      cmp -s out/d/data.bin old/d/data.bin || cmp -s out/d/data.bin new/d/data.bin ||
        fail "$format: unpacked a mix of the old set and the new one"
    else
      grep -q "pdx: error: x.$format.part-[0-9]*: " err || fail "$format: $(cat err)"
      [ ! -e out/d/data.bin ] || fail "$format: refused, but wrote out/d/data.bin"
    fi
    break
  done
  [ $killed = 1 ] || fail "$format: pack always finished before it could be killed"
  rm -f .x.$format.part-*.pdx-*
done
echo ok
