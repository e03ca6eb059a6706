# DeepSpeed's PDSHRunner (deepspeed/launcher/multinode_runner.py) through the pdsh name, over ssh:
# its argv as it builds it (exports, cd, python -u -m deepspeed.launcher.launch --world_info=...
# --node_rank=%n), PDSH_RCMD_TYPE and PDSH_SSH_ARGS_APPEND=" -p PORT", against a stand-in
# launcher; every host gets the rank of its place in -w; then DeepSpeed's kill command.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/pdsh_common.sh"

chmod 755 "$SCRATCH"  # the hosts' accounts read the stand-in launcher from here
mkdir -p "$SCRATCH/ds/deepspeed/launcher"
touch "$SCRATCH/ds/deepspeed/__init__.py" "$SCRATCH/ds/deepspeed/launcher/__init__.py"
cat > "$SCRATCH/ds/deepspeed/launcher/launch.py" <<'PY'
import argparse, base64, json, os, sys, time
p = argparse.ArgumentParser()
p.add_argument("--world_info"); p.add_argument("--node_rank", type=int)
p.add_argument("--master_addr"); p.add_argument("--master_port", type=int)
p.add_argument("script"); p.add_argument("args", nargs=argparse.REMAINDER)
a = p.parse_args()
world = json.loads(base64.urlsafe_b64decode(a.world_info))
print(f"rank={a.node_rank} host={list(world)[a.node_rank]} master={a.master_addr}:{a.master_port}"
      f" cwd={os.getcwd()} A={os.environ['A']} script={a.script} args={' '.join(a.args)}")
if "--sleep" in a.args:
    sys.stdout.flush(); time.sleep(30)  # as this command line, for the kill command to find
PY
h1=$(host 1) h2=$(host 2) h3=$(host 3) h4=$(host 4)
order=("$h3" "$h1" "$h4" "$h2")  # not the cluster's order: %n follows -w
hosts=$(IFS=,; echo "${order[*]}")
world=$(python3 -c 'import base64, json, sys
print(base64.urlsafe_b64encode(json.dumps({h: [0, 1] for h in sys.argv[1:]}).encode()).decode())' "${order[@]}")
export PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS_APPEND=" -F $CONFIG -p $CLUSTER_PORT"
launch=("export PYTHONPATH=\"$SCRATCH/ds\"; export A=\"x y\"; " "cd $SCRATCH;" /usr/bin/python3 -u -m
  deepspeed.launcher.launch "--world_info=$world" --node_rank=%n "--master_addr=$h3" --master_port=29500)

run_pdsh -S -f 1024 -w "$hosts" "${launch[@]}" train.py --lr 0.1
expect_status 0
expect_eq "$err" "" "stderr"
for rank in 0 1 2 3; do
  h=${order[rank]}
  expect_contains "$out" "$h: rank=$rank host=$h master=$h3:29500 cwd=$SCRATCH A=x y script=train.py args=--lr 0.1"
done
expect_lines "$out" 4
if [[ -n $REAL_PDSH ]]; then  # Debian's pdsh prints the same lines
  run_real_pdsh -S -f 1024 -w "$hosts" "${launch[@]}" train.py --lr 0.1
  expect_eq "$(sort <<< "$out")" "$(sort <<< "$real_out")" "pdx vs pdsh"
  expect_eq "$status" "$real_status" "exit status vs pdsh"
fi

# The job, then the kill command as PDSHRunner makes it: pkill -f with backslash-escaped spaces.
"$PDSH" -S -f 1024 -w "$hosts" "${launch[@]}" train.py --sleep < /dev/null > "$SCRATCH/job.out" 2>&1 &
job=$!
search=()
for word in "${launch[@]:2:4}"; do search+=("$word\\"); done
pattern="${search[*]}"
pattern=${pattern:0:${#pattern}-2}
launcher="^/usr/bin/python3 -u -m deepspeed.launcher.launch --world_info=$world"
wait_for_processes "$launcher" 4
run_pdsh -f 1024 -w "$hosts" "pkill -f " "$pattern"
expect_status 0  # pdsh's, without -S
wait "$job"
job_status=$?
[[ $job_status -ne 0 ]] || fail "the job was not stopped by the kill command: $(cat "$SCRATCH/job.out")"
expect_contains "$(cat "$SCRATCH/job.out")" "ssh exited with exit code" "the killed job's report"
[[ $(pgrep -fc "$launcher") -eq 0 ]] || fail "launchers left running"
true
