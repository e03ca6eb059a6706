# The .deb that `cpack` builds, installed with dpkg on a clean Debian 12 root (debootstrap
# --variant=minbase, with the packages the .deb depends on; made once from the mirror apt uses
# here and kept in the build directory, so reruns take seconds): `pdx --version` and `pdsh -V`
# through its link work there, `dpkg -r` removes every file, and on a root without libssh2-1 dpkg
# refuses the package for that dependency. Skips (as root only, needs the mirror) where it cannot.
source "$(dirname "$0")/../lib/common.sh"

skip() {
  echo "SKIP [$TEST_NAME]: $*"
  exit 0
}

# The Debian mirror of apt's bookworm sources here (PDX_DEBIAN_MIRROR overrides it).
debian_mirror() {
  if [[ -n ${PDX_DEBIAN_MIRROR:-} ]]; then echo "$PDX_DEBIAN_MIRROR"; return; fi
  {
    awk '/^URIs:/ { uri = $2 } /^Suites:.*[[:space:]]bookworm([[:space:]]|$)/ && uri { print uri }
         /^[[:space:]]*$/ { uri = "" }' /etc/apt/sources.list.d/*.sources 2> /dev/null
    awk '$1 == "deb" && $3 == "bookworm" { print $2 }' /etc/apt/sources.list 2> /dev/null
  } | head -1
}

# in_root ROOT COMMAND...: COMMAND chrooted in ROOT, with a /proc of its own (pdx --compat-dir
# reads /proc/self/exe) that ends with it.
in_root() {
  local root=$1
  shift
  unshare --fork --pid --mount --mount-proc="$root/proc" chroot "$root" "$@"
}

[[ $EUID -eq 0 ]] || skip "needs root (chroot, dpkg --root)"
command -v debootstrap > /dev/null || skip "no debootstrap (apt-get install debootstrap)"

build=$(dirname "$PDX")
cpack --config "$build/CPackConfig.cmake" -B "$SCRATCH/pkg" > "$SCRATCH/cpack.log" 2>&1 ||
  fail "cpack: $(cat "$SCRATCH/cpack.log")"
debs=("$SCRATCH"/pkg/pdx_*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || fail "cpack made no pdx_*.deb: $(ls "$SCRATCH/pkg")"
deb=${debs[0]}
depends=$(dpkg-deb -f "$deb" Depends)
expect_contains "$depends" "libssh2-1" "the .deb's Depends"
expect_contains "$depends" "libarchive13" "the .deb's Depends"

# The clean root: minbase plus what the .deb depends on (first of each alternative), cached under
# a name of that list, so a change of dependencies makes a new one.
packages=$(tr ',' '\n' <<< "$depends" | sed 's/|.*//; s/(.*//; s/[[:space:]]//g' | grep . | paste -sd,)
cache=$build/debian12-root.$(cksum <<< "$packages" | cut -d' ' -f1)
if [[ ! -d $cache ]]; then
  mirror=$(debian_mirror)
  [[ -n $mirror ]] || skip "no Debian bookworm mirror in apt's sources (set PDX_DEBIAN_MIRROR)"
  rm -rf "$build"/debian12-root.*  # roots for other dependency lists
  echo "debootstrap --variant=minbase --include=$packages bookworm (once, into $cache)"
  if ! debootstrap --variant=minbase "--include=$packages" bookworm "$cache.tmp" "$mirror" \
      > "$SCRATCH/debootstrap.log" 2>&1; then
    rm -rf "$cache.tmp"
    grep -Eq 'Failed getting release file|Couldn.t download|Failure trying to run: .*wget|Temporary failure' \
      "$SCRATCH/debootstrap.log" && skip "the Debian mirror cannot be reached: $(tail -1 "$SCRATCH/debootstrap.log")"
    fail "debootstrap: $(tail -20 "$SCRATCH/debootstrap.log")"
  fi
  mv "$cache.tmp" "$cache"
fi
root=$SCRATCH/root
cp -a "$cache" "$root" || fail "cannot copy $cache"
cp "$deb" "$root/tmp/pdx.deb"

in_root "$root" dpkg -i /tmp/pdx.deb > "$SCRATCH/dpkg.log" 2>&1 || fail "dpkg -i: $(cat "$SCRATCH/dpkg.log")"
run_in_root() {
  in_root "$root" "$@" < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
  status=$?
  out=$(cat "$SCRATCH/stdout")
  err=$(cat "$SCRATCH/stderr")
}
run_in_root pdx --version
expect_status 0
expect_contains "$out" "pdx " "pdx --version"
run_in_root pdx --compat-dir
expect_status 0
expect_eq "$out" "/usr/lib/pdx/bin" "--compat-dir"
run_in_root /usr/lib/pdx/bin/pdsh -V
expect_status 0
expect_contains "$out" "pdsh-2.34 (pdx " "pdsh -V"
run_in_root env PATH=/usr/lib/pdx/bin:/usr/bin:/bin pdsh -R exec -w a,b echo %h
expect_status 0
expect_eq "$(sort <<< "$out")" $'a: a\nb: b' "pdsh -R exec through the link"
for file in usr/share/bash-completion/completions/pdx usr/lib/pdx/bin/dshbak; do
  [[ -e $root/$file ]] || fail "not installed: $file ($(in_root "$root" dpkg -L pdx))"
done
ls "$root"/usr/share/man/man1/pdx.1* > /dev/null 2>&1 || fail "no man page installed"

# dpkg -r takes every file away again.
in_root "$root" dpkg -L pdx | sed 's#^/##' | grep . > "$SCRATCH/files"
in_root "$root" dpkg -r pdx > "$SCRATCH/dpkg.log" 2>&1 || fail "dpkg -r: $(cat "$SCRATCH/dpkg.log")"
left=$(cd "$root" && while read -r file; do [[ -f $file || -L $file ]] && echo "$file"; done < "$SCRATCH/files")
expect_eq "$left" "" "files left after dpkg -r"

# Without libssh2-1, dpkg refuses pdx for that dependency, and pdx is not left configured.
in_root "$root" dpkg --purge --force-depends libssh2-1 > "$SCRATCH/dpkg.log" 2>&1 ||
  fail "cannot remove libssh2-1 from the root: $(cat "$SCRATCH/dpkg.log")"
run_in_root dpkg -i /tmp/pdx.deb
expect_status 1
expect_contains "$err" "pdx depends on libssh2-1" "dpkg's refusal"
expect_eq "$(in_root "$root" dpkg-query -W -f='${Status}' pdx)" "install ok unpacked" "pdx's state"
true
