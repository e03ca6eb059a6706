# The torchrun launch of ssh_torchrun.sh with one host's shard missing: that host's workers fail
# with their traceback in its log, the other hosts' jobs end too instead of waiting for it (gloo
# sees their peers go; -u bounds it in any case), pdx exits 1 naming every host, nothing prints a
# checksum, and no process of the job is left on any host.
source "$(dirname "$0")/../lib/torch_common.sh"

missing=${TORCH_HOSTS[2]}
rm "$(home_of 3)/$JOB_DIR/shard.$missing"
port=$(free_port)
hosts=$(IFS=,; echo "${TORCH_HOSTS[*]}")
run_ssh -w "$hosts" -u 300 -E GLOO_SOCKET_IFNAME=lo -E OMP_NUM_THREADS=1 --outdir "$SCRATCH/logs" \
  "$TORCHRUN --nnodes=\$PDX_NHOSTS --node_rank=\$PDX_RANK --master_addr=\$PDX_MASTER \
--master_port=$port $JOB shard.\$PDX_HOST"
logs=("$SCRATCH"/logs/*)
[[ $status -eq 1 ]] || torch_fail "exit status $status, expected 1; stderr: $err" "${logs[@]}"
expect_eq "$err" "pdx: 127.0.0.[1-4]: exit 1" "pdx's summary"
grep -q "FileNotFoundError: .*shard.$missing" "$SCRATCH/logs/$missing.err" ||
  torch_fail "no traceback for the missing shard in $missing's log" "${logs[@]}"
grep -q "checksum=" "${logs[@]}" && torch_fail "a checksum was printed" "${logs[@]}"
expect_job_gone "${logs[@]}"
