# pdx pull --progress: the bytes received from the hosts and the hosts done (no total is known),
# the line erased before the report; none on a file without --progress.
source "$(dirname "$0")/../lib/common.sh"
mkdir -p "$SCRATCH/bin" "$SCRATCH/src"
head -c 100000 /dev/urandom > "$SCRATCH/src/f"
# A tar slow to start: the pull lasts several ticks of the line.
printf '#!/bin/sh\nsleep 0.4\nexec %q "$@"\n' "$(command -v tar)" > "$SCRATCH/bin/tar"
chmod +x "$SCRATCH/bin/tar"
clear=$'\r\033[K'

PATH=$SCRATCH/bin:$PATH run_pdx pull -R exec -w 'h[1-3]' --progress "$SCRATCH/src/f" "$SCRATCH/out"
expect_status 0
[[ $err == "${clear}pdx: "*"B, "*"/s, hosts: "*" done, 0 failed, of 3"*"${clear}pdx: h[1-3]: pulled" ]] ||
  fail "progress then report: $(cat -v "$SCRATCH/stderr")"

PATH=$SCRATCH/bin:$PATH run_pdx pull -R exec -w h1 "$SCRATCH/src/f" "$SCRATCH/out2"
expect_status 0
expect_eq "$err" "pdx: h1: pulled" "no progress on a file"
true
