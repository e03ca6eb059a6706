# Ctrl-C in the middle of a push: exit 130, no file under its final name that is not complete,
# no temporary file left; the re-run completes.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
mkdir "$SCRATCH/src"
for f in a b c d; do head -c 33554432 /dev/urandom > "$SCRATCH/src/$f"; done

"$PDX" -R exec -w 'h[1-4]' push "$SCRATCH/src" "$SCRATCH/out/%h" > "$SCRATCH/out.txt" 2>&1 &
pid=$!
for _ in $(seq 300); do  # until a first file is named on h1: the rest is under way
  [[ -n $(ls -A "$SCRATCH/out/h1/src" 2> /dev/null) ]] && break
  sleep 0.02
done
kill -INT "$pid"
wait "$pid"
status=$?
err=$(cat "$SCRATCH/out.txt")
expect_status 130
for h in h1 h2 h3 h4; do
  for f in a b c d; do
    [[ ! -e $SCRATCH/out/$h/src/$f ]] || cmp -s "$SCRATCH/src/$f" "$SCRATCH/out/$h/src/$f" ||
      fail "$h: $f under its final name but not complete"
  done
done
no_leftovers "$SCRATCH/out"

run_pdx -R exec -w 'h[1-4]' push "$SCRATCH/src" "$SCRATCH/out/%h"
expect_status 0
for h in h1 h2 h3 h4; do same_tree "$SCRATCH/src" "$SCRATCH/out/$h/src"; done
