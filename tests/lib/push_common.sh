# Shared by tests/cli/push_*.sh and ssh_push_*.sh: a source tree with awkward names, and how to
# compare what a host received with it.
[[ -n ${SCRATCH:-} ]] || source "$(dirname "${BASH_SOURCE[0]}")/common.sh"  # once: it makes SCRATCH

# The binary push deploys as the agent (distribute/remote_agent.h): pdx without its symbols, else
# the static build beside pdx if there is one (cmake -DPDX_STATIC=ON), else pdx. (The static
# build goes only where the other cannot run: tests/cli/push_exec_static_fallback.sh.)
# deployed_static: that static build, or "" without one.
deployed_agent() {
  if command -v objcopy > /dev/null; then  # pdx's copy without symbols: the same bytes
    [[ -f $SCRATCH/.stripped-pdx ]] || objcopy --strip-all "$PDX" "$SCRATCH/.stripped-pdx"
    echo "$SCRATCH/.stripped-pdx"
  elif [[ -x $(dirname "$PDX")/pdx-static ]]; then  # smaller than pdx with its symbols
    echo "$(dirname "$PDX")/pdx-static"
  else
    echo "$PDX"
  fi
}
deployed_static() {
  [[ -x $(dirname "$PDX")/pdx-static ]] && echo "$(dirname "$PDX")/pdx-static"
}

# make_tree DIR: files with spaces, quotes, a newline, $(...), a leading '-', a subdirectory,
# an empty file and one of 3 MiB (several data frames).
make_tree() {
  mkdir -p "$1/sub dir/deeper" "$1/-lead"
  printf 'plain\n' > "$1/plain"
  printf 'space\n' > "$1/with space"
  printf 'quote\n' > "$1/it's \"quoted\""
  printf 'newline\n' > "$1/new
line"
  printf 'dollar\n' > "$1/\$(touch PWNED)"
  printf 'lead\n' > "$1/-lead/-n"
  : > "$1/sub dir/empty"
  head -c 3145728 /dev/urandom > "$1/sub dir/deeper/big"
  chmod 0751 "$1/plain"
  touch -d '2001-02-03 04:05:06' "$1/with space"
}

# same_tree A B: same names, bytes, modes, and files' mtimes (seconds), or fail saying what
# differs. (Directories' mtimes are not kept.)
same_tree() {
  diff -r "$1" "$2" > /dev/null || fail "$2 differs from $1: $(diff -r "$1" "$2" 2>&1 | head -3)"
  local listing_a listing_b
  listing_a=$(cd "$1" && find . \( -type f -printf '%P %m %T@\n' \) -o -printf '%P %m\n' | sed 's/\.[0-9]*$//' | sort)
  listing_b=$(cd "$2" && find . \( -type f -printf '%P %m %T@\n' \) -o -printf '%P %m\n' | sed 's/\.[0-9]*$//' | sort)
  [[ $listing_a == "$listing_b" ]] || fail "modes or mtimes differ between $1 and $2"
}

# no_leftovers DIR: no temporary file of pdx's anywhere under DIR.
no_leftovers() {
  local left
  left=$(find "$1" -name '.*.pdx-*' 2> /dev/null)
  [[ -z $left ]] || fail "temporary files left: $left"
}

# clean_on_hosts N NAME: remove NAME from the homes of hosts 1..N now and when the test ends
# (the homes outlive a test run).
clean_on_hosts() {
  local i
  for i in $(seq "$1"); do
    rm -rf "$(home_of "$i")/$2"
    at_exit "rm -rf '$(home_of "$i")/$2'"
  done
}

# full_disk N NAME SIZE: a tmpfs of SIZE (4m) mounted on NAME in host N's home, owned by its
# account, unmounted when the test ends (call it after clean_on_hosts for NAME); skips the test
# where no tmpfs can be mounted.
full_disk() {
  local dir
  dir=$(home_of "$1")/$2
  mkdir -p "$dir"
  mount -t tmpfs -o "size=$3,mode=0755" tmpfs "$dir" 2> /dev/null || skip "cannot mount a tmpfs"
  at_exit "umount '$dir'"
  chown "$(stat -c %u:%g "$(home_of "$1")")" "$dir"
}
