# Shared fixture of the tests/cli/archive_*.sh tests: a scratch directory, a tree of awkward
# files, tree comparison, and checks of exit status and error lines. Source it; it sets -eu.
set -euo pipefail

: "${PDX:?PDX must name the pdx binary}"
mkdir -p "${PDX_TEST_TMP:-/tmp}"
WORK=$(mktemp -d "${PDX_TEST_TMP:-/tmp}/archive.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
source "$(dirname "${BASH_SOURCE[0]}")/flip_byte.sh"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# make_tree DIR: text, binary, an empty dir, a symlink, a hard link, a sparse file, and names
# with spaces, a newline and UTF-8.
make_tree() {
  local dir=$1
  mkdir -p "$dir/sub/deeper" "$dir/empty dir" "$dir/ünïcødé"
  seq 1 20000 >"$dir/sub/numbers.txt"
  head -c 300000 /dev/urandom >"$dir/sub/random.bin"
  echo "hello" >"$dir/with space.txt"
  echo "newline" >"$dir/new"$'\n'"line"
  echo "utf8" >"$dir/ünïcødé/файл.txt"
  echo "deep" >"$dir/sub/deeper/x"
  ln -s ../with\ space.txt "$dir/sub/link"
  ln "$dir/sub/deeper/x" "$dir/hardlink"
  truncate -s 5M "$dir/sparse"
  echo "middle" | dd of="$dir/sparse" bs=1 seek=1000000 conv=notrunc status=none
  chmod 0750 "$dir/sub/deeper"
  chmod 0600 "$dir/with space.txt"
  touch -d '2001-02-03 04:05:06' "$dir/sub/numbers.txt"
}

# tree_listing DIR: type, mode, size, mtime, link target and content hash of every entry.
tree_listing() {
  (cd "$1" && find . -mindepth 1 -printf '%y %m %n %s %TY-%Tm-%Td.%TH:%TM:%.2TS %l|%P\0' | sort -z |
    while IFS= read -r -d '' line; do
      local name=${line#*|}
      case $line in
        d*) line=$(echo "$line" | sed "s/^\(d [0-9]* \)[0-9]* [0-9]* /\1- - /") ;;  # dir sizes, links vary
        f*) line="$line $(md5sum <"$name" | cut -c1-32)" ;;
      esac
      printf '%s\n' "${line//$'\n'/\\n}"
    done)
}

# same_tree A B: fails unless A and B hold the same entries, contents, modes and mtimes.
same_tree() {
  diff <(tree_listing "$1") <(tree_listing "$2") >"$WORK/tree.diff" ||
    fail "trees $1 and $2 differ: $(head -20 "$WORK/tree.diff")"
}

# expect_error STATUS PATTERN CMD...: CMD must exit STATUS and print one "pdx: error:" line
# that matches PATTERN (grep -E).
expect_error() {
  local want=$1 pattern=$2
  shift 2
  local status=0
  "$@" >"$WORK/out" 2>"$WORK/err" || status=$?
  [ "$status" = "$want" ] || fail "$* exited $status, not $want: $(cat "$WORK/err")"
  [ "$(grep -c '^pdx: error: ' "$WORK/err")" = 1 ] || fail "$*: not one error line: $(cat "$WORK/err")"
  grep -Eq -- "$pattern" "$WORK/err" || fail "$*: error does not match '$pattern': $(cat "$WORK/err")"
}

# no_temp_files DIR: nothing half-written (pdx's temporary names) left in DIR.
no_temp_files() {
  local left
  left=$(find "$1" -name '.*.pdx-*' | head -5)
  [ -z "$left" ] || fail "temporary files left behind: $left"
}

# tar_of NAME PYTHON-STATEMENTS: writes NAME.tar (pax) with Python's tarfile, running the
# statements with add(name, data=b"x\n", kind=tarfile.REGTYPE, link="", mode=0o644 or 0o755 for a
# directory) at hand, and `big`, 3 MiB
# (a file unpack streams rather than hands to its writer threads).
tar_of() {
  python3 - "$1" "$2" <<'PY'
import io, sys, tarfile
def add(name, data=b"x\n", kind=tarfile.REGTYPE, link="", mode=None):
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    info.mode = mode if mode is not None else 0o755 if kind == tarfile.DIRTYPE else 0o644
    if kind == tarfile.REGTYPE:
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    else:
        t.addfile(info)
big = b"B" * (3 << 20)
with tarfile.open(sys.argv[1] + ".tar", "w", format=tarfile.PAX_FORMAT) as t:
    exec(sys.argv[2])
PY
}
