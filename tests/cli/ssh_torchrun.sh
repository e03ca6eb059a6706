# A real torchrun launch (Debian's python3-torch, gloo over loopback) on 4 hosts: pdx starts
# torchrun with --nnodes=$PDX_NHOSTS --node_rank=$PDX_RANK --master_addr=$PDX_MASTER, the 8
# workers read the shard staged on their host and all-reduce its checksum; rank 0's result is the
# one computed here. Per-host logs (--outdir) are shown on failure.
source "$(dirname "$0")/../lib/torch_common.sh"

port=$(free_port)
hosts=$(IFS=,; echo "${TORCH_HOSTS[*]}")
run_ssh -w "$hosts" -u 600 -E GLOO_SOCKET_IFNAME=lo -E OMP_NUM_THREADS=1 --outdir "$SCRATCH/logs" \
  "$TORCHRUN --nnodes=\$PDX_NHOSTS --node_rank=\$PDX_RANK --master_addr=\$PDX_MASTER \
--master_port=$port $JOB shard.\$PDX_HOST"
logs=("$SCRATCH"/logs/*)
[[ $status -eq 0 ]] || torch_fail "exit status $status; stderr: $err" "${logs[@]}"
output=$(for host in "${TORCH_HOSTS[@]}"; do sed "s/^/$host: /" "$SCRATCH/logs/$host.out"; done)
expect_torch_run "$output" "$(expected_checksum "${TORCH_HOSTS[@]}")" "${logs[@]}"
# Rank 0 runs on the first host, PDX_MASTER, where the rendezvous is.
grep -q "torch_job: workers=8 " "$SCRATCH/logs/${TORCH_HOSTS[0]}.out" ||
  torch_fail "the result is not printed by the first host" "${logs[@]}"
true
