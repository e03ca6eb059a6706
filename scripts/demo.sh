#!/bin/bash
# A staging day with pdx, end to end, on a throwaway loopback cluster it starts itself (fresh
# Debian 12): install, build, start N sshd hosts on 127.0.0.1..N, then
#   1. every host answers, identical output folded,
#   2. pack a dataset into split parts while streaming,
#   3. stage it on every host (push --extract: the parts streamed once, unpacked on arrival),
#   4. verify counts, bytes and hashes on every host against the source,
#   5. push the job's code (a re-run sends only what changed: here, nothing),
#   6. launch a real torchrun job (Debian's python3-torch, CPU, gloo) on every host with its rank
#      and the NCCL/GLOO environment, per-host logs written here; the job reads the data staged
#      on its host and all-reduces a checksum of it,
#   7. compare that checksum with the one computed here from the source,
#   8. pull the job's own log files back from every host.
# Each step prints the command it runs, as it runs it (in the demo's directory), so that it can
# be copied. The hosts' copies and the cluster are removed on exit.   scripts/demo.sh [HOSTS=8]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
N=${1:-8}
scripts/deps.sh
PDX_TARGETS=pdx scripts/build.sh >/dev/null  # the demo runs pdx alone: no tests built
PDX=$ROOT/${PDX_BUILD:-build}/pdx
JOB=$ROOT/scripts/demo-job.py
WORK=$(mktemp -d /tmp/pdx-demo.XXXXXX)
chmod 755 "$WORK"
cleanup() {
  "$PDX" -F "$WORK/cluster/ssh_config" -w "^$WORK/cluster/hostfile" 'rm -rf pdx-demo' || true
  "$ROOT/scripts/loopback-cluster.sh" stop "$WORK/cluster"
  rm -rf "$WORK"
}
trap cleanup EXIT
start=$SECONDS
scripts/loopback-cluster.sh start "$WORK/cluster" "$N"
cd "$WORK"

step() { printf '\n\033[1m== %s\033[0m\n' "$1"; }
run() { printf '$ %s\n' "$1"; eval "$1"; }

mkdir -p src/data/raw src/job
for i in $(seq 1 200); do seq "$i" $((i * 50)) >"src/data/raw/shard-$i.txt"; done
head -c 3000000 /dev/urandom >src/data/raw/weights.bin
cp "$JOB" src/job/job.py
# torchrun's rendezvous port on the first host: one nothing listens on.
port=29500
while ss -Htln "sport = :$port" | grep -q .; do port=$((port + 1)); done

step "0. pdx, and this cluster's hosts (or pdx -w ^FILE); -F below: its port, key and known_hosts"
run "export PATH=$(dirname "$PDX"):\$PATH WCOLL=cluster/hostfile"

step "1. every host answers; identical output is folded"
run "pdx -F cluster/ssh_config -b 'uname -s; id -un | sed s/[0-9]*\$//'"

step "2. pack the dataset into 1 MiB parts while streaming"
run '(cd src && pdx pack data -o ../data.tar.zst --split 1M) && ls data.tar.zst.part-*'

step "3. stage it on every host: the parts streamed once, unpacked on arrival"
run 'pdx -F cluster/ssh_config push data.tar.zst.part-* pdx-demo/ --extract'

step "4. verify: file counts, bytes and hashes on every host against the source, folded"
run 'pdx -F cluster/ssh_config verify pdx-demo/data --against src/data --hash'

step "5. push the job's code; a re-run sends only what is missing or changed"
run 'pdx -F cluster/ssh_config push src/job/ pdx-demo/job/'
run 'pdx -F cluster/ssh_config push src/job/ pdx-demo/job/'

step "6. launch torchrun on every host with its rank, NCCL/GLOO set, a log per host (not | tee)"
run "pdx -F cluster/ssh_config -u 600 --outdir logs \\
    -E GLOO_SOCKET_IFNAME=lo -E NCCL_SOCKET_IFNAME=lo -E NCCL_DEBUG=INFO -E OMP_NUM_THREADS=1 \\
    'cd pdx-demo && exec /usr/bin/python3 -m torch.distributed.run --nnodes=\$PDX_NHOSTS \\
    --node_rank=\$PDX_RANK --master_addr=\$PDX_MASTER --master_port=$port --nproc_per_node=1 \\
    --max_restarts=0 --redirects=9:1 --tee=9:1 job/job.py data out'"
run 'ls logs | head -4 && cat logs/127.0.0.1.out'

step "7. the job's all-reduced checksum against the source's, computed here"
run 'sum=0  # the first 12 hex digits of every SHA-256, summed, as the job does
for h in $(find src/data -type f -exec sha256sum {} + | cut -c1-12); do sum=$((sum + 16#$h)); done
echo "checksum=$sum"'
grep -q " checksum=$sum\$" logs/127.0.0.1.out ||
  { echo "demo: the job's checksum is not the source's ($sum)" >&2; exit 1; }
echo "match"

step "8. gather the job's log files back from every host: LOCAL/<host>/..."
run 'pdx -F cluster/ssh_config pull pdx-demo/out/ pulled/'
run 'find pulled -type f | sort | head -4 && cat pulled/127.0.0.1/rank-0.log'
printf '\ndemo: the staging day took %d s (after install and build)\n' $((SECONDS - start))
