# Shared by the --json tests of push, pull and verify: JSON lines read back with python3.
[[ -n ${SCRATCH:-} ]] || source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# json_fields KEY...: for each line of the last run's stdout, the values of KEYs as a compact JSON
# array (a dotted KEY goes into objects and arrays: failed.0.path); fails unless every line is
# a JSON object.
json_fields() {
  python3 - "$SCRATCH/stdout" "$@" <<'PY' || fail "stdout is not JSON lines: $out"
import json, sys
def get(value, path):
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value
for line in open(sys.argv[1], encoding="utf-8"):
    row = json.loads(line)
    assert isinstance(row, dict), line
    print(json.dumps([get(row, k) for k in sys.argv[2:]], separators=(",", ":"), ensure_ascii=False))
PY
}
