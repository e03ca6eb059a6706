# Shared by tests/cli/push_*.sh and ssh_push_*.sh: a source tree with awkward names, and how to
# compare what a host received with it.
[[ -n ${SCRATCH:-} ]] || source "$(dirname "${BASH_SOURCE[0]}")/common.sh"  # once: it makes SCRATCH

# The binary push deploys as the agent (distribute/remote_agent.h): pdx-agent (else pdx) without
# its symbols, else the static build beside pdx if there is one (cmake -DPDX_STATIC=ON), else
# pdx. (The static build goes only where the other cannot run: push_exec_static_fallback.sh.)
# deployed_static: that static build, or "" without one.
deployed_agent() {
  local alone=$(dirname "$PDX")/pdx-agent  # the agent alone, where it is built beside pdx
  [[ -x $alone ]] || alone=$PDX
  if command -v objcopy > /dev/null; then  # its copy without symbols: the same bytes
    [[ -f $SCRATCH/.stripped-pdx ]] || objcopy --strip-all "$alone" "$SCRATCH/.stripped-pdx"
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

# static_fallback_setup: for tests of the static build sent where pdx cannot run: skips (77)
# without pdx-static or objcopy; else HOME is $SCRATCH/home, make_tree makes $SCRATCH/src, and
# it sets $static, $agent (deployed_agent), their SHA-256s $static_sha and $sha, and $cache:
# where the agent's copy goes under ~/.cache/pdx.
static_fallback_setup() {
  static=$(deployed_static)
  if [[ -z $static ]] || ! command -v objcopy > /dev/null; then
    echo "SKIP [$TEST_NAME]: no pdx-static beside $PDX, or no objcopy"
    exit 77
  fi
  export HOME=$SCRATCH/home
  make_tree "$SCRATCH/src"
  agent=$(deployed_agent)
  sha=$(sha256sum < "$agent" | cut -c1-64)
  static_sha=$(sha256sum < "$static" | cut -c1-64)
  cache=$HOME/.cache/pdx/$sha
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

# make_names_tree DIR: make_tree, with names that are not all UTF-8 (bytes 0xff, 0xfe, and UTF-8
# that the C locale cannot convert), a file after them (zzz), a directory of mode 0750, and
# directories' mtimes to the nanosecond.
make_names_tree() {
  make_tree "$1"
  mkdir -p "$1/"$'dir\xfe'/inner
  printf 'bad\n' > "$1/"$'bad\xff'
  printf 'cafe\n' > "$1/"$'caf\xc3\xa9'
  printf 'inner\n' > "$1/"$'dir\xfe'/inner/$'\xfe'
  printf 'last\n' > "$1/zzz"
  chmod 0750 "$1/"$'dir\xfe'
  touch -d '2001-02-03 04:05:06.123456789' "$1/"$'dir\xfe'/inner "$1/"$'dir\xfe' "$1/sub dir/deeper" "$1/sub dir" "$1"
}

# make_cut_archive: $SCRATCH/src with a (1000 random bytes) and b, $SCRATCH/whole.tar of them
# (ustar), and $SCRATCH/part-0: that archive cut at an entry's end (a's header and data, no more).
make_cut_archive() {
  mkdir -p "$SCRATCH/src"
  head -c 1000 /dev/urandom > "$SCRATCH/src/a"
  printf 'b\n' > "$SCRATCH/src/b"
  tar -c --format=ustar -f "$SCRATCH/whole.tar" -C "$SCRATCH/src" a b || fail "tar failed"
  head -c 1536 "$SCRATCH/whole.tar" > "$SCRATCH/part-0"
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

# dirs_of DIR: each directory's name, mode and mtime (to the nanosecond).
dirs_of() { (cd "$1" && find . -type d -printf '%P %m %T@\n' | sort); }

# same_dirs A B WHO: the directories under A and B have the same names, modes and mtimes (to the
# nanosecond), or fail saying so for WHO.
same_dirs() {
  [[ $(dirs_of "$1") == "$(dirs_of "$2")" ]] ||
    fail "$3: directories' modes or mtimes differ: $(diff <(dirs_of "$1") <(dirs_of "$2") | head -4)"
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

# clean_extracted_on_hosts N NAME: clean_on_hosts, and the records of NAME as an --extract DEST
# (the agent's and the host's sh's, in ~/.cache/pdx/extracted) removed when the test ends.
clean_extracted_on_hosts() {
  local i home key
  clean_on_hosts "$1" "$2"
  for i in $(seq "$1"); do
    home=$(home_of "$i")
    key=$(printf %s "$home/$2" | sha256sum | cut -c1-64)
    at_exit "rm -f '$home/.cache/pdx/extracted/$key'"
    key=$(printf '%s\n' "$home/$2" | sha256sum | cut -c1-64)
    at_exit "rm -f '$home/.cache/pdx/extracted/posix-$key'"
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

# ---- Over ssh, to hosts 1..N of the cluster (ssh_common.sh). ----

# kill_push_midway N DEST PDX_ARGS...: pdx PDX_ARGS against the cluster in the background,
# SIGKILLed once host 1's tar has written a file into its hidden directory in DEST (15 s at
# most); then fails unless each of hosts 1..N has no DEST/src (nothing under its final name) and
# its hidden directory goes within 10 s.
kill_push_midway() {
  local n=$1 dest=$2 pid i home
  shift 2
  "$PDX" -F "$CONFIG" "$@" > /dev/null 2>&1 &
  pid=$!
  for _ in $(seq 300); do  # until host 1's tar has written something: the rest is under way
    [[ -n $(find "$(home_of 1)/$dest" -path '*/.push.pdx-*/d/src/*' -size +0 2> /dev/null) ]] && break
    sleep 0.05
  done
  kill -KILL "$pid"
  wait "$pid" 2> /dev/null
  for i in $(seq "$n"); do
    home=$(home_of "$i")
    [[ ! -e $home/$dest/src ]] || fail "host $i: files under their final names after a killed push"
    for _ in $(seq 100); do
      [[ -z $(find "$home/$dest" -name '.push.pdx-*' 2> /dev/null) ]] && continue 2
      sleep 0.1
    done
    fail "host $i: the temporary directory stayed"
  done
}

# same_tree_on_hosts N DEST: each of hosts 1..N has $SCRATCH/src as DEST/src (same_tree), and no
# hidden directory of a push left in DEST.
same_tree_on_hosts() {
  local i
  for i in $(seq "$1"); do
    same_tree "$SCRATCH/src" "$(home_of "$i")/$2/src"
    [[ -z $(find "$(home_of "$i")/$2" -name '.push.pdx-*') ]] || fail "host $i: temporary directory left"
  done
}

# direct_proxy ADDRESS ARGS...: tests/lib/tcp_proxy.py ARGS... in front of the agent to listen
# on ADDRESS port $agent_port (a free one, picked here: give it as --relay-ports); its own port in
# $proxy_port, for PDX_TEST_DIRECT_VIA. Stopped when the test ends.
direct_proxy() {
  local address=$1 pid
  shift
  agent_port=$(python3 -c 'import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' "$address")
  rm -f "$SCRATCH/proxy_port"
  python3 "$PDX_SRC/tests/lib/tcp_proxy.py" "$SCRATCH/proxy_port" "$address" "$agent_port" "$@" &
  pid=$!
  at_exit "kill $pid 2> /dev/null"
  for _ in $(seq 100); do [[ -s $SCRATCH/proxy_port ]] && break; sleep 0.05; done
  proxy_port=$(cat "$SCRATCH/proxy_port")
}

# logging_agent: $SCRATCH/agent, pdx as the agent (--agent), each call's sshd $SSH_CONNECTION and
# first option appended to $SCRATCH/log/calls, which every host's account may write.
logging_agent() {
  chmod 0755 "$SCRATCH"
  mkdir -p "$SCRATCH/log"
  : > "$SCRATCH/log/calls"
  chmod 0666 "$SCRATCH/log/calls"
  cat > "$SCRATCH/agent" << EOF2
#!/bin/sh
echo "\$SSH_CONNECTION \$2" >> "$SCRATCH/log/calls"
exec "$PDX" "\$@"
EOF2
  chmod 0755 "$SCRATCH/agent"
}
