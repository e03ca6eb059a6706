# pdx SIGKILLed in the middle of a push: no host has a truncated file under its final name or
# a temporary one left; the re-run sends the rest and completes.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 8 ? CLUSTER_SIZE : 8 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
clean_on_hosts "$n" killed
mkdir "$SCRATCH/src"
for f in a b c d; do head -c 67108864 /dev/urandom > "$SCRATCH/src/$f"; done
"$PDX" -F "$CONFIG" -w "$hosts" push "$PDX_SRC/README.md" 'killed/warm/' > /dev/null 2>&1  # deploy

"$PDX" -F "$CONFIG" -w "$hosts" push "$SCRATCH/src" 'killed/' > /dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do  # until a first file is named on host 1: the rest is under way
  [[ -n $(ls -A "$(home_of 1)/killed/src" 2> /dev/null) ]] && break
  sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2> /dev/null
for _ in $(seq 100); do pgrep -f 'agent .*=killed/' > /dev/null || break; sleep 0.1; done
for i in $(seq "$n"); do
  home=$(home_of "$i")
  for f in a b c d; do
    [[ ! -e $home/killed/src/$f ]] || cmp -s "$SCRATCH/src/$f" "$home/killed/src/$f" ||
      fail "host $i: $f under its final name but not complete"
  done
  no_leftovers "$home/killed"
done

run_ssh -w "$hosts" push "$SCRATCH/src" 'killed/'
expect_status 0
[[ $out != *"up to date"* ]] || fail "the killed push had completed on some host: $out"
for i in $(seq "$n"); do
  same_tree "$SCRATCH/src" "$(home_of "$i")/killed/src"
  no_leftovers "$(home_of "$i")/killed"
done
