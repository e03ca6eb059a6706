# The real torchrun launch of ssh_torchrun.sh through the pdsh name, as a user or DeepSpeed would
# write it: --node_rank=%n, shard.%h, exports in the command, PDSH_SSH_ARGS_APPEND=" -p PORT";
# hosts in an order of their own in -w, so node ranks (and the checksum's weights) follow it.
source "$(dirname "$0")/../lib/torch_common.sh"
source "$(dirname "$0")/../lib/pdsh_common.sh"

port=$(free_port)
order=("${TORCH_HOSTS[3]}" "${TORCH_HOSTS[1]}" "${TORCH_HOSTS[0]}" "${TORCH_HOSTS[2]}")
hosts=$(IFS=,; echo "${order[*]}")
export PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS_APPEND=" -F $CONFIG -p $CLUSTER_PORT"
run_pdsh -S -f 1024 -u 600 -w "$hosts" 'export GLOO_SOCKET_IFNAME="lo"; ' 'export OMP_NUM_THREADS="1"; ' \
  "$TORCHRUN" --nnodes=4 --node_rank=%n "--master_addr=${order[0]}" "--master_port=$port" "$JOB" shard.%h
printf '%s\n' "$out" > "$SCRATCH/pdsh.out"
printf '%s\n' "$err" > "$SCRATCH/pdsh.err"
[[ $status -eq 0 ]] || torch_fail "exit status $status" "$SCRATCH/pdsh.out" "$SCRATCH/pdsh.err"
expect_torch_run "$out" "$(expected_checksum "${order[@]}")" "$SCRATCH/pdsh.out" "$SCRATCH/pdsh.err"
for rank in 0 1 2 3; do  # %n: the place in -w
  grep -q "^${order[rank]}: torch_job: node=$rank " <<< "$out" ||
    torch_fail "${order[rank]} is not node $rank" "$SCRATCH/pdsh.out"
done
true
