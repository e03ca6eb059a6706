# pdx push --no-agent lists DEST with the host's GNU find. A host whose find has no -printf
# (BusyBox, BSD) is sent everything, and pdx says so once; a host whose find lies (names with
# '..' or absolute) fails on one line, and nothing is written outside DEST, nor in it.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
mkdir -p "$SCRATCH/src" "$SCRATCH/bin"
printf 'a\n' > "$SCRATCH/src/a"
real_find=$(command -v find)

# fake_find SCRIPT: $SCRATCH/bin/find runs SCRIPT (sh), with the real find as $real.
fake_find() {
  printf '#!/bin/sh\nreal=%s\n%s\n' "$real_find" "$1" > "$SCRATCH/bin/find"
  chmod +x "$SCRATCH/bin/find"
}

# No -printf: the listing cannot be made, so the host gets everything, each run.
fake_find 'for a; do [ "$a" = -printf ] && { echo "find: unrecognized: -printf" >&2; exit 1; }; done; exec "$real" "$@"'
for run in first again; do
  PATH=$SCRATCH/bin:$PATH run_pdx -R exec -w h1 push --no-agent "$SCRATCH/src" "$SCRATCH/plain/"
  expect_status 0
  expect_eq "$out" "pdx: h1: 2 B in 1 file" "summary ($run run)"
  expect_contains "$err" "pdx: warning: h1: the host's find cannot list DEST (not GNU find); sending everything"
  expect_lines "$err" 2 "warnings ($run run)"
done
cmp -s "$SCRATCH/src/a" "$SCRATCH/plain/src/a" || fail "the file did not land"

# A find that names what is outside DEST: the host fails, nothing is sent to it.
fake_find 'case "$*" in *%p*) printf "f 644 2 0 ./../../outside\0d 755 0 0 /etc\0"; exit 0 ;; esac; exec "$real" "$@"'
mkdir "$SCRATCH/lied"
PATH=$SCRATCH/bin:$PATH run_pdx -R exec -w h1 push --no-agent "$SCRATCH/src" "$SCRATCH/lied/"
expect_status 1
expect_eq "$out" "" "summary (a lying find)"
expect_contains "$err" "pdx: h1: malformed listing from the host's find: an unsafe name in 'f 644 2 0 ./../../outside'"
[[ -z $(ls -A "$SCRATCH/lied") && ! -e $SCRATCH/outside ]] || fail "something was written"
