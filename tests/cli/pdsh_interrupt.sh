# pdx as pdsh, Ctrl-C under -R exec as pdsh 2.34's: the first SIGINT lists the hosts still
# running and the run goes on to its end; a second within 1 s aborts ("interrupt, aborting.",
# status 1) with nothing left running; -b aborts at the first. SIGTERM always stops the run, as
# DeepSpeed sends it 0.1 s after SIGINT (status 143: pdsh killed by it).
source "$(dirname "$0")/../lib/pdsh_common.sh"

node=$(hostname -s)
mark=".$$"  # sleep %n.PID: in every sleep's command line, to find what is left running
cmd=(sh -c "sleep %n$mark; echo done %h")

# start_job: pdsh on h1 (sleep 0.x: ends at once), h2 (1.x s) and h3 (2.x s); waits until
# h2 and h3 run.
start_job() {
  "$PDSH" "$@" -R exec -w 'h[1-3]' "${cmd[@]}" < /dev/null > "$SCRATCH/out" 2> "$SCRATCH/err" &
  job=$!
  wait_for_processes "sleep [12]$mark" 2
  # h1's done: its line out and its sh gone (then a moment for pdx to take its end), however
  # loaded the machine is
  for _ in $(seq 100); do
    grep -q "^h1: done" "$SCRATCH/out" && ! pgrep -f "sleep 0$mark" > /dev/null && break
    sleep 0.05
  done
  sleep 0.3
}
expect_nothing_left() {
  sleep 0.2
  local left
  left=$(pgrep -f "sleep [12]$mark")
  [[ -z $left ]] || fail "$1: commands left running: $left"
}
in_progress="pdsh@$node: h2: command in progress
pdsh@$node: h3: command in progress"

start_job
kill -INT "$job"
finish_job
expect_status 0
expect_eq "$out" "$(printf 'h1: done h1\nh2: done h2\nh3: done h3')" "one SIGINT: the run goes on"
expect_eq "$err" "pdsh@$node: interrupt (one more within 1 sec to abort)
$in_progress" "one SIGINT"

start_job
kill -INT "$job"
sleep 0.3
kill -INT "$job"
finish_job
expect_status 1
expect_eq "$out" "h1: done h1" "two SIGINTs"
expect_eq "$err" "pdsh@$node: interrupt (one more within 1 sec to abort)
$in_progress
pdsh@$node: interrupt, aborting." "two SIGINTs"
expect_nothing_left "two SIGINTs"

start_job
kill -INT "$job"
sleep 1.2  # more than 1 s apart: a first SIGINT again
kill -INT "$job"
finish_job
expect_status 0
expect_eq "$(grep -c 'interrupt (one more' <<< "$err")" 2 "two SIGINTs 1.2 s apart"
expect_contains "$out" "h3: done h3" "two SIGINTs 1.2 s apart"

start_job -b
kill -INT "$job"
finish_job
expect_status 1
expect_eq "$err" "pdsh@$node: batch mode interrupt, aborting." "-b"
expect_nothing_left "-b"

start_job  # DeepSpeed's launcher
kill -INT "$job"
sleep 0.1
kill -TERM "$job"
finish_job
expect_status 143
expect_eq "$out" "h1: done h1" "SIGINT then SIGTERM"
expect_nothing_left "SIGINT then SIGTERM"

# Interactive: an aborted command brings the prompt back, and the next line runs.
{ echo "sleep 2$mark; echo slept"; sleep 1.5; echo "echo after"; } |
  "$PDSH" -R exec -w h1,h2 > "$SCRATCH/out" 2> "$SCRATCH/err" &
job=$!
wait_for_processes "sleep 2$mark" 2
kill -INT "$job"
sleep 0.2
kill -INT "$job"
finish_job
expect_status 0
expect_eq "$(sort <<< "$out")" "$(printf '%s\n' "pdsh> " "pdsh> echo after" "pdsh> sleep 2$mark; echo slept" \
  "h1: after" "h2: after" | sort)" "interactive, two SIGINTs"
expect_contains "$err" "pdsh@$node: interrupt, aborting." "interactive"
expect_nothing_left "interactive"

start_job
kill -TERM "$job"
finish_job
expect_status 143
expect_eq "$err" "" "SIGTERM"
expect_nothing_left "SIGTERM"
true
