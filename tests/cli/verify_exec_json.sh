# pdx verify --json: one JSON object per host per line on stdout: match or differs, the counts and
# the first names of what is missing, extra or changed (as the host named them, escaped); a host
# that cannot be listed has its error.
source "$(dirname "$0")/../lib/json_lines.sh"
export HOME=$SCRATCH/home  # where the agent is deployed
src=$SCRATCH/src
mkdir -p "$src"
printf abc > "$src/a"
printf 'x' > "$src/extra \"q\"
x"
cp -r "$src" "$SCRATCH/ref"
rm "$SCRATCH/ref/extra"*
printf abd > "$SCRATCH/ref/a"
printf m > "$SCRATCH/ref/m"

run_pdx verify -R exec -w 'h[1-2]' --json "$src" --against "$src" --hash
expect_status 0
expect_eq "$err" "" "stderr"
expect_eq "$(json_fields host status result files bytes missing extra changed error)" \
  '["h1",0,"match",2,4,0,0,0,null]
["h2",0,"match",2,4,0,0,0,null]' "matching hosts"

run_pdx verify -R exec -w h1 --json "$src" --against "$SCRATCH/ref" --hash
expect_status 1
expect_eq "$(json_fields result missing missing_names extra extra_names changed changed_names)" \
  '["differs",1,["m"],1,["extra \"q\"\nx"],1,["a"]]' "what differs"

# Without a reference: the odd host differs.
run_pdx verify -R exec -w 'h[1-3]' --json "$src"
expect_status 0
expect_eq "$(json_fields host result)" '["h1","match"]
["h2","match"]
["h3","match"]' "hosts alike"

run_pdx verify -R exec -w 'h[1-2]' --json "$SCRATCH/none" --against "$src"
expect_status 1
expect_eq "$(json_fields host status error)" "[\"h1\",1,\"$SCRATCH/none: no such directory\"]
[\"h2\",1,\"$SCRATCH/none: no such directory\"]" "not listed"
true
