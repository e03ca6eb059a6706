# pdx pull --json: one JSON object per host per line on stdout, the bytes each host sent and its
# error (the host's own words, escaped), instead of the folded report on stderr.
source "$(dirname "$0")/../lib/json_lines.sh"
mkdir -p "$SCRATCH/src"
printf 'abc' > "$SCRATCH/src/f"

run_pdx pull -R exec -w 'h[1-2]' --json "$SCRATCH/src/f" "$SCRATCH/out"
expect_status 0
expect_eq "$err" "" "stderr"
expect_eq "$(json_fields host status error)" '["h1",0,null]
["h2",0,null]' "hosts"
(($(json_fields bytes | head -1 | tr -d '[]') >= 1024)) || fail "bytes: $(json_fields bytes)"
expect_eq "$(cat "$SCRATCH/out/h2/f")" abc "h2's file"

# A name with a quote and a newline that the host cannot find: named in its error, escaped.
missing="$SCRATCH/src/no \"such\"
file"
run_pdx pull -R exec -w h1 --json "$missing" "$SCRATCH/out2"
expect_status 1
expect_eq "$(json_fields host status)" '["h1",1]' "failed host"
expect_contains "$(json_fields error)" 'Cannot stat' "its error"
true
