# Shared by tests/cli/ssh_torchrun*.sh: a real torchrun job (Debian's python3-torch, CPU, gloo)
# on 4 hosts of the loopback cluster. Each host's account gets, in its home, the directory
# $JOB_DIR holding tests/lib/torch_job.py and its own data shard (shard.ADDRESS). A test runs
# "$TORCHRUN --nnodes=... --node_rank=... ... $JOB shard.HOST" on the hosts; the job all-reduces a
# checksum of the shards, which expected_checksum computes here.
source "$(dirname "${BASH_SOURCE[0]}")/cluster_job.sh"

TORCH_PYTHON=/usr/bin/python3  # Debian's python3-torch is for Debian's python, not one in PATH
"$TORCH_PYTHON" -c 'import torch.distributed' 2> /dev/null ||
  skip "torch cannot be imported by $TORCH_PYTHON (apt-get install python3-torch)"

JOB_DIR=torch_job.$(basename "$SCRATCH")  # relative to each account's home: unique to this run
TORCH_HOSTS=("$(host 1)" "$(host 2)" "$(host 3)" "$(host 4)")
# torch 1.13's torchrun on Python 3.11 fails to parse --redirects/--tee given for all ranks
# (AttributeError: 'NoneType' object has no attribute 'get'); the per-rank form works.
TORCHRUN="cd $JOB_DIR && exec $TORCH_PYTHON -m torch.distributed.run --nproc_per_node=2 \
--max_restarts=0 --redirects=9:1 --tee=9:1"
# The job by its full path, so that the workers' command lines name $JOB_DIR too.
JOB='"$PWD/torch_job.py"'

job_dirs "$JOB_DIR" 1 2 3 4
at_exit "pkill -f '$JOB_DIR'"  # what a failed run left (every process of the job names it)

# Stage the job and a shard of its own (sizes differ) on each host.
for n in 1 2 3 4; do
  dir=$(home_of "$n")/$JOB_DIR
  cp "$(dirname "${BASH_SOURCE[0]}")/torch_job.py" "$dir/"
  head -c $((40000 + n * 1001)) /dev/urandom > "$dir/shard.$(host "$n")"
  chmod -R a+rX "$dir"
done

# expected_checksum HOST...: what torch_job.py computes when HOST i has node rank i: the sum over
# hosts of (i + 1) * the sum of the bytes of HOST i's shard.
expected_checksum() {
  local i=0 total=0 host n sum
  for host in "$@"; do
    n=$(grep -nx "$host" "$HOSTFILE" | cut -d: -f1)
    sum=$(od -An -v -tu1 "$(home_of "$n")/$JOB_DIR/shard.$host" | awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s }')
    total=$((total + (i + 1) * sum))
    i=$((i + 1))
  done
  echo "$total"
}

# torch_fail MESSAGE LOG...: fail, showing the LOG files first.
torch_fail() {
  local message=$1 log
  shift
  for log in "$@"; do
    echo "---- $log" >&2
    cat "$log" >&2
  done
  fail "$message"
}

# expect_torch_run OUTPUT CHECKSUM LOG...: OUTPUT (the job's stdout, host: prefixes and all) has
# one line per worker, node ranks 0-3 with 2 workers each, and rank 0's all-reduced result
# CHECKSUM over 8 workers; and no process of the job is left.
expect_torch_run() {
  local output=$1 checksum=$2 node
  shift 2
  [[ $(grep -c 'torch_job: node=' <<< "$output") -eq 8 ]] || torch_fail "not 8 workers" "$@"
  for node in 0 1 2 3; do
    [[ $(grep -c "torch_job: node=$node " <<< "$output") -eq 2 ]] || torch_fail "node $node has not 2 workers" "$@"
  done
  grep -q "torch_job: workers=8 checksum=$checksum\$" <<< "$output" ||
    torch_fail "no all-reduced checksum $checksum" "$@"
  expect_job_gone "$@"
}

# expect_job_gone LOG...: no process of the job is left on any host.
expect_job_gone() {
  for _ in $(seq 50); do pgrep -f "$JOB_DIR" > /dev/null || return 0; sleep 0.1; done
  torch_fail "processes of the job left running: $(pgrep -af "$JOB_DIR")" "$@"
}
