"""The training job of scripts/demo.sh, started by torchrun on every host (CPU, gloo).

    job.py DATA OUT

Each worker reads its share of the dataset staged on its host (every WORLD_SIZE-th file of DATA,
sorted by name, from its global rank on), adds up the files' checksums (the first 12 hex digits
of each one's SHA-256, as a number) and all-reduces that sum and its file count. Rank 0 prints
`job: files=F checksum=C`, which the demo compares with the same sum computed from the source:
a host with a missing or different file, or a worker given another's rank, gives another C.
Every worker prints one line and writes it to OUT/rank-R.log on its host as well.
"""
import hashlib
import os
import sys

import torch
import torch.distributed as dist


def checksum(path):
    with open(path, "rb") as f:
        return int(hashlib.sha256(f.read()).hexdigest()[:12], 16)


def main():
    data, out = sys.argv[1], sys.argv[2]
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    files = sorted(os.path.join(d, f) for d, _, names in os.walk(data) for f in names)
    mine = files[rank::world]
    total = torch.tensor([sum(checksum(p) for p in mine), len(mine)], dtype=torch.int64)
    line = f"job: rank={rank}/{world} node={os.environ['GROUP_RANK']} read {len(mine)} files"
    print(line, flush=True)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"rank-{rank}.log"), "w") as log:
        log.write(f"{line} on {os.environ['PDX_HOST']} in {os.getcwd()}\n")
    dist.all_reduce(total, op=dist.ReduceOp.SUM)
    if rank == 0:
        print(f"job: files={total[1].item()} checksum={total[0].item()}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
