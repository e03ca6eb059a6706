"""A training job's skeleton for tests/cli/ssh_torchrun*.sh, started by torchrun on every host.

Each worker reads the shard staged on its host (argv[1]), takes every LOCAL_WORLD_SIZE-th byte
from its LOCAL_RANK on, weights their sum by its node's rank + 1 (so a host that got another
host's rank or shard gives another total), and all-reduces that and a worker count over gloo.
Rank 0 prints `torch_job: workers=W checksum=C`; every worker prints what it read.
"""
import os
import sys

import torch
import torch.distributed as dist


def say(line):
    """One write per line: the workers share the agent's stdout, and torchrun starts them with
    -u, where print() writes the text and its newline apart, so two workers' lines can mix."""
    os.write(1, (line + "\n").encode())


def main():
    dist.init_process_group("gloo")
    node = int(os.environ["GROUP_RANK"])
    local, local_world = int(os.environ["LOCAL_RANK"]), int(os.environ["LOCAL_WORLD_SIZE"])
    with open(sys.argv[1], "rb") as shard:
        data = shard.read()
    mine = sum(data[local::local_world]) * (node + 1)
    say(f"torch_job: node={node} local={local} rank={dist.get_rank()} shard={sys.argv[1]}"
        f" bytes={len(data[local::local_world])}")
    total = torch.tensor([mine, 1], dtype=torch.int64)
    dist.all_reduce(total, op=dist.ReduceOp.SUM)
    if dist.get_rank() == 0:
        say(f"torch_job: workers={total[1].item()} checksum={total[0].item()}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
