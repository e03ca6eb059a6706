# pdx push --json: one JSON object per host per line on stdout instead of the folded report,
# every string escaped (a failed path with a quote and a backslash, as the agent named it); the
# exit status as without --json.
source "$(dirname "$0")/../lib/push_common.sh"
source "$(dirname "$0")/../lib/json_lines.sh"
export HOME=$SCRATCH/home
printf 'data\n' > "$SCRATCH/f"
dest="$SCRATCH/d \"q\" \\x"
mkdir -p "$dest/h2/f"
printf 'in the way' > "$dest/h2/f/inner"

run_pdx -R exec -w 'h[1-3]' push --json "$SCRATCH/f" "$dest/%h/"
expect_status 1
expect_eq "$err" "" "stderr"
expect_lines "$out" 3 "a line per host"
expect_eq "$(json_fields host status files bytes up_to_date error)" '["h1",0,1,5,false,null]
["h2",1,0,0,false,null]
["h3",0,1,5,false,null]' "figures"
expect_eq "$(json_fields failed | sed -n 2p)" \
  "[[{\"path\":$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$dest/h2/f"),\"reason\":\"cannot put in place: Is a directory\"}]]" \
  "the failed file"

# Pushed again: the hosts that have it are up to date.
run_pdx -R exec -w 'h[1,3]' push --json "$SCRATCH/f" "$dest/%h/"
expect_status 0
expect_eq "$(json_fields host status up_to_date files failed)" '["h1",0,true,0,[]]
["h3",0,true,0,[]]' "up to date"

# A host whose agent fails: its error, its status that of the run.
printf '#!/bin/sh\necho broken >&2\nexit 3\n' > "$SCRATCH/broken-agent"
chmod +x "$SCRATCH/broken-agent"
run_pdx -R exec -w h1 push --json --agent "$SCRATCH/broken-agent" "$SCRATCH/f" "$dest/h1/"
expect_status 1
expect_eq "$(json_fields host status)" '["h1",1]' "failed host"
expect_contains "$(json_fields error)" "agent failed" "its error"
true
