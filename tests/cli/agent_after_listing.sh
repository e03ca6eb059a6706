# `pdx agent --list=DEST --receive=DEST --relay=DEST` (the agent that lists and stays, push's one
# command per host): after its listing it reads one byte, 'r' for --receive's stream on stdin, 'l'
# for --relay's link setup; the end of its input lets it go (exit 0, nothing written); any other
# byte, or one naming a mode it was not given, fails with one line, nothing written.
source "$(dirname "$0")/../lib/common.sh"
mkdir "$SCRATCH/d"

# agent_with INPUT ARGS...: the agent, INPUT (printf's) on its stdin; sets $out, $err, $status.
agent_with() {
  local input=$1
  shift
  printf "$input" | "$PDX" agent "$@" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
  status=$?
  out=$(od -An -c "$SCRATCH/stdout" | tr -d ' \n')
  err=$(cat "$SCRATCH/stderr")
}
both=(--list="$SCRATCH/d" --receive="$SCRATCH/d/" --relay="$SCRATCH/d/")

agent_with '' "${both[@]}"
expect_status 0
[[ -n $out ]] || fail "no listing"
expect_eq "$err" "" "let go"

agent_with 'x' "${both[@]}"
expect_status 1
expect_eq "$err" "pdx: error: unexpected input after the listing"
[[ -n $out ]] || fail "no listing before the error"

agent_with 'l' --list="$SCRATCH/d" --receive="$SCRATCH/d/"
expect_status 1
expect_eq "$err" "pdx: error: unexpected input after the listing" "'l' without --relay"

agent_with 'r' --list="$SCRATCH/d" --relay="$SCRATCH/d/"
expect_status 1
expect_eq "$err" "pdx: error: unexpected input after the listing" "'r' without --receive"

agent_with 'r' "${both[@]}"  # --receive's stream, cut short at once
expect_status 1
expect_contains "$err" "input ended before the push was complete" "'r' then nothing"

agent_with 'l' "${both[@]}"  # --relay's setup, cut short at once
expect_status 1
expect_contains "$err" "input ended before the relay was set up" "'l' then nothing"

[[ -z $(ls -A "$SCRATCH/d") ]] || fail "written: $(ls -A "$SCRATCH/d")"

# `--signatures=DEST [--list=DEST] --patch=... --delete=...` (sync's first step, and the one after
# it): the requests on stdin up to their end frame, the signatures and the listing, then one byte
# as above: 'd' for --delete's names, 'p' for --patch's deltas; a step it was not given fails.
# A step over stdin replies with its summary and the agent reads the next step's byte: several
# steps in one run, the end of input after any of them lets it go.
printf 'keep\n' > "$SCRATCH/d/keep"
done_frame='Q\0\0\0\0'  # the end of the requests (none asked), or of the names to delete
sync_steps=(--signatures="$SCRATCH/d" --list="$SCRATCH/d" --under=. --patch="$SCRATCH/d"
  --delete="$SCRATCH/d")

agent_with "$done_frame" "${sync_steps[@]}"
expect_status 0
expect_eq "$err" "" "signatures and listing, let go"
[[ $out == *keep* ]] || fail "no listing after the signatures: $out"

agent_with "${done_frame}d${done_frame}" "${sync_steps[@]}"  # nothing to delete
expect_status 0
expect_eq "$err" "" "'d' and no names"

agent_with "${done_frame}d${done_frame}p${done_frame}d${done_frame}" "${sync_steps[@]}"
expect_status 0
expect_eq "$err" "" "three steps in one run"
# The types of the frames written (a type byte, a u32 length, the payload), entries left out: the
# signatures' summary, the listing's, then one per step.
types=$(/usr/bin/python3 -c '
import struct, sys
data, at, types = sys.stdin.buffer.read(), 0, ""
while at + 5 <= len(data):
    kind, size = data[at:at + 1].decode(), struct.unpack(">I", data[at + 1:at + 5])[0]
    at += 5 + size
    types += kind if kind != "L" else ""
print(types if at == len(data) else types + "?")
' < "$SCRATCH/stdout")
expect_eq "$types" "SSSSS" "a summary per reply and per step"

agent_with "${done_frame}d${done_frame}x" "${sync_steps[@]}"
expect_status 1
expect_eq "$err" "pdx: error: unexpected input after the step's receipt" "a bad byte after a step"

agent_with "${done_frame}r" "${sync_steps[@]}"
expect_status 1
expect_eq "$err" "pdx: error: unexpected input after the signatures" "'r' without --receive"

agent_with "${done_frame}p" "${sync_steps[@]}"  # --patch's deltas, cut short at once
expect_status 1
[[ -n $err ]] || fail "'p' then nothing: no error"

agent_with "" --list="$SCRATCH/d" --delete="$SCRATCH/d"
expect_status 2
expect_contains "$err" "give one of" "--delete after --list"
[[ $(ls -A "$SCRATCH/d") == keep ]] || fail "changed: $(ls -A "$SCRATCH/d")"
