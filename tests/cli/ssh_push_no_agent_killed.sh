# pdx SIGKILLed in the middle of a push --no-agent: no host has a file under its final name
# (the host's tar fills a hidden directory, and files are moved into place only once it is
# whole), and the hidden directory goes when the host's sh sees its input end. A re-run
# completes.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=$(( CLUSTER_SIZE < 4 ? CLUSTER_SIZE : 4 ))
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
dest="killed-no-agent-$(basename "$SCRATCH")"
clean_on_hosts "$n" "$dest"
mkdir "$SCRATCH/src"
for f in a b c d; do head -c 67108864 /dev/urandom > "$SCRATCH/src/$f"; done

"$PDX" -F "$CONFIG" -w "$hosts" push --no-agent "$SCRATCH/src" "$dest/" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do  # until host 1's tar has written something: the rest is under way
  [[ -n $(find "$(home_of 1)/$dest" -path '*/.push.pdx-*/d/src/*' -size +0 2> /dev/null) ]] && break
  sleep 0.05
done
kill -KILL "$pid"
wait "$pid" 2> /dev/null
for i in $(seq "$n"); do
  home=$(home_of "$i")
  [[ ! -e $home/$dest/src ]] || fail "host $i: files under their final names after a killed push"
  for _ in $(seq 100); do
    [[ -z $(find "$home/$dest" -name '.push.pdx-*' 2> /dev/null) ]] && continue 2
    sleep 0.1
  done
  fail "host $i: the temporary directory stayed"
done

run_ssh -w "$hosts" push --no-agent "$SCRATCH/src" "$dest/"
expect_status 0
expect_contains "$out" ": 256.0 MiB in 4 files"
for i in $(seq "$n"); do
  same_tree "$SCRATCH/src" "$(home_of "$i")/$dest/src"
  [[ -z $(find "$(home_of "$i")/$dest" -name '.push.pdx-*') ]] || fail "host $i: temporary directory left"
done
