#!/bin/bash
# pdx's main job, end to end, on a throwaway loopback cluster it starts itself (fresh Debian 12):
# install, build, start N sshd hosts on 127.0.0.1..N, then
#   1. run a command everywhere, each host told its rank (a torchrun-style launch line),
#   2. pack a dataset into split parts while streaming,
#   3. stage it on every host (push --extract: the parts streamed once, unpacked on arrival),
#   4. verify counts, bytes and hashes on every host against the source, folded,
#   5. push a tree, change a file, push again (only the change goes), and pull a file back.
# The cluster is stopped on exit.   scripts/demo.sh [HOSTS=8]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-8}
scripts/deps.sh
scripts/build.sh >/dev/null
PDX=$PWD/${PDX_BUILD:-build}/pdx
WORK=$(mktemp -d /tmp/pdx-demo.XXXXXX)
chmod 755 "$WORK"
trap 'scripts/loopback-cluster.sh stop "$WORK/cluster"; rm -rf "$WORK"' EXIT
scripts/loopback-cluster.sh start "$WORK/cluster" "$N"
pdx() { "$PDX" -F "$WORK/cluster/ssh_config" -w "^$WORK/cluster/hostfile" "$@"; }
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }

step "1. launch on every host, each told its place" \
  "pdx 'echo torchrun --nnodes=\$PDX_NHOSTS --node_rank=\$PDX_RANK --master_addr=\$PDX_MASTER'"
pdx 'echo torchrun --nnodes=$PDX_NHOSTS --node_rank=$PDX_RANK --master_addr=$PDX_MASTER train.py'

step "2. identical output folded" "pdx -b 'uname -s; id -un | sed s/[0-9]*\$//'"
pdx -b 'uname -s; id -un | sed s/[0-9]*$//'

mkdir -p "$WORK/src/data/raw"
for i in $(seq 1 200); do seq "$i" $((i * 50)) >"$WORK/src/data/raw/shard-$i.txt"; done
head -c 3000000 /dev/urandom >"$WORK/src/data/raw/weights.bin"
step "3. pack the dataset into 1 MiB parts while streaming" \
  "pdx pack data -o data.tar.zst --split 1M"
(cd "$WORK/src" && "$PDX" pack data -o ../data.tar.zst --split 1M && ls -l ../data.tar.zst.part-*)

step "4. stage it on every host: the parts streamed once, unpacked on arrival" \
  "pdx push data.tar.zst.part-* stage/ --extract"
pdx push "$WORK"/data.tar.zst.part-* stage/ --extract

step "5. verify: file counts, bytes and hashes on every host against the source, folded" \
  "pdx verify stage/data --against data --hash"
pdx verify stage/data --against "$WORK/src/data" --hash

step "6. a re-run of a tree push sends only what changed" "pdx push data/ stage/tree/"
pdx push "$WORK/src/data/" stage/tree/
echo changed >>"$WORK/src/data/raw/shard-7.txt"
pdx push "$WORK/src/data/" stage/tree/

step "7. gather a file back from every host: LOCAL/<host>/..." "pdx pull stage/tree/raw/shard-7.txt pulled/"
pdx pull stage/tree/raw/shard-7.txt "$WORK/pulled/"
ls "$WORK/pulled" | head -3
