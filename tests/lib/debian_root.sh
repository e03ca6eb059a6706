# Shared by tests/cli/install_deb.sh and static_agent.sh: a clean Debian 12 root (debootstrap
# --variant=minbase, plus some packages), made once from the mirror apt uses here and kept in the
# build directory, so reruns take seconds; and how to run a command chrooted in it.
[[ -n ${SCRATCH:-} ]] || source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# The Debian mirror of apt's bookworm sources here (PDX_DEBIAN_MIRROR overrides it).
debian_mirror() {
  if [[ -n ${PDX_DEBIAN_MIRROR:-} ]]; then echo "$PDX_DEBIAN_MIRROR"; return; fi
  {
    awk '/^URIs:/ { uri = $2 } /^Suites:.*[[:space:]]bookworm([[:space:]]|$)/ && uri { print uri }
         /^[[:space:]]*$/ { uri = "" }' /etc/apt/sources.list.d/*.sources 2> /dev/null
    awk '$1 == "deb" && $3 == "bookworm" { print $2 }' /etc/apt/sources.list 2> /dev/null
  } | head -1
}

# debian_root NAME PACKAGES: sets DEBIAN_ROOT to the cached root BUILD/NAME.<cksum of PACKAGES>
# (comma-separated, may be empty), debootstrapping it the first time (and removing NAME.* roots
# of other package lists). Returns 1 with DEBIAN_ROOT_PROBLEM set when it cannot be made here
# (not root, no debootstrap, the mirror out of reach); fails the test when debootstrap does.
debian_root() {
  local name=$1 packages=$2 build mirror
  build=$(dirname "$PDX")
  DEBIAN_ROOT=$build/$name.$(cksum <<< "$packages" | cut -d' ' -f1)
  [[ -d $DEBIAN_ROOT ]] && return 0
  DEBIAN_ROOT_PROBLEM="needs root (chroot, dpkg --root)"
  [[ $EUID -eq 0 ]] || return 1
  DEBIAN_ROOT_PROBLEM="no debootstrap (apt-get install debootstrap)"
  command -v debootstrap > /dev/null || return 1
  mirror=$(debian_mirror)
  DEBIAN_ROOT_PROBLEM="no Debian bookworm mirror in apt's sources (set PDX_DEBIAN_MIRROR)"
  [[ -n $mirror ]] || return 1
  rm -rf "$build/$name".*  # roots for other package lists
  echo "debootstrap --variant=minbase${packages:+ --include=$packages} bookworm (once, into $DEBIAN_ROOT)"
  if ! debootstrap --variant=minbase ${packages:+"--include=$packages"} bookworm \
      "$DEBIAN_ROOT.tmp" "$mirror" > "$SCRATCH/debootstrap.log" 2>&1; then
    rm -rf "$DEBIAN_ROOT.tmp"
    DEBIAN_ROOT_PROBLEM="the Debian mirror cannot be reached: $(tail -1 "$SCRATCH/debootstrap.log")"
    grep -Eq 'Failed getting release file|Couldn.t download|Failure trying to run: .*wget|Temporary failure' \
      "$SCRATCH/debootstrap.log" && return 1
    fail "debootstrap: $(tail -20 "$SCRATCH/debootstrap.log")"
  fi
  mv "$DEBIAN_ROOT.tmp" "$DEBIAN_ROOT"
}

# in_root ROOT COMMAND...: COMMAND chrooted in ROOT, with a /proc of its own (pdx --compat-dir
# reads /proc/self/exe) that ends with it.
in_root() {
  local root=$1
  shift
  unshare --fork --pid --mount --mount-proc="$root/proc" chroot "$root" "$@"
}

# run_in_root ROOT COMMAND...: in_root with stdin from /dev/null; sets $out, $err, $status.
run_in_root() {
  in_root "$@" < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
  status=$?
  out=$(cat "$SCRATCH/stdout")
  err=$(cat "$SCRATCH/stderr")
}
