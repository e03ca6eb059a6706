# pdx verify --progress: the hosts done and failed, the line erased before the report; none on a
# file without --progress. Through the hosts' find (--no-agent), made slow to start.
source "$(dirname "$0")/../lib/common.sh"
mkdir -p "$SCRATCH/bin" "$SCRATCH/src"
printf abc > "$SCRATCH/src/f"
# A find slow to start: the run lasts several ticks of the line.
printf '#!/bin/sh\nsleep 0.4\nexec %q "$@"\n' "$(command -v find)" > "$SCRATCH/bin/find"
chmod +x "$SCRATCH/bin/find"
clear=$'\r\033[K'

PATH=$SCRATCH/bin:$PATH run_pdx verify -R exec -w 'h[1-3]' --progress --no-agent "$SCRATCH/src"
expect_status 0
[[ $err == "${clear}pdx: hosts: "*" done, 0 failed, of 3${clear}pdx: warning: h[1-3]: "*$'
'"pdx: h[1-3]: 1 file, 3 B, listing "* ]] ||
  fail "progress then report: $(cat -v "$SCRATCH/stderr")"

PATH=$SCRATCH/bin:$PATH run_pdx verify -R exec -w 'h[1-2]' --no-agent "$SCRATCH/none"
expect_status 1
expect_eq "${err#*$'\n'}" "pdx: h[1-2]: $SCRATCH/none: no such directory" "no progress on a file"
true
