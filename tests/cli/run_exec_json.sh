# --json: one valid JSON object per host, --outdir: a pair of files per host.
source "$(dirname "$0")/../lib/common.sh"

run_pdx -R exec --json -w 'n[1-3]' 'echo "out %h"; echo err >&2; exit %n'
expect_status 2
expect_lines "$out" 3
python3 - "$SCRATCH/stdout" <<'PY' || fail "JSON lines do not say what they should"
import json, sys
rows = {r["host"]: r for r in map(json.loads, open(sys.argv[1]))}
assert set(rows) == {"n1", "n2", "n3"}, rows
for i, h in enumerate(["n1", "n2", "n3"]):
    r = rows[h]
    assert r["rank"] == i and r["exit_status"] == i, r
    assert r["stdout"] == f"out {h}\n" and r["stderr"] == "err\n", r
    assert r["error"] is None and r["signal"] is None and r["duration"] >= 0, r
PY

run_pdx -R exec --outdir "$SCRATCH/logs" -w 'n[1-2]' 'echo "out %h"; echo "err %h" >&2'
expect_status 0
expect_eq "$out" ""
expect_eq "$(cat "$SCRATCH/logs/n2.out")" "out n2"
expect_eq "$(cat "$SCRATCH/logs/n1.err")" "err n1"
