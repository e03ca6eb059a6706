# The .deb that `cpack` builds, installed with dpkg on a clean Debian 12 root (debootstrap
# --variant=minbase, with the packages the .deb depends on; made once from the mirror apt uses
# here and kept in the build directory, so reruns take seconds; no libarchive13 there, as pdx
# links libarchive in): `pdx --version` and `pdsh -V` through its link work there, `dpkg -r`
# removes every file, and on a root without libssh2-1 dpkg refuses the package for that
# dependency. Skips (as root only, needs the mirror) where it cannot.
source "$(dirname "$0")/../lib/debian_root.sh"

skip() {
  echo "SKIP [$TEST_NAME]: $*"
  exit 0
}

build=$(dirname "$PDX")
cpack --config "$build/CPackConfig.cmake" -B "$SCRATCH/pkg" > "$SCRATCH/cpack.log" 2>&1 ||
  fail "cpack: $(cat "$SCRATCH/cpack.log")"
debs=("$SCRATCH"/pkg/pdx_*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || fail "cpack made no pdx_*.deb: $(ls "$SCRATCH/pkg")"
deb=${debs[0]}
depends=$(dpkg-deb -f "$deb" Depends)
expect_contains "$depends" "libssh2-1" "the .deb's Depends"
expect_contains "$depends" "libzstd1" "the .deb's Depends"
# libarchive is linked in (cmake/StaticLibarchive.cmake): the root below has no libarchive13.
[[ $depends != *libarchive* ]] || fail "the .deb depends on libarchive: [$depends]"

# The clean root: minbase plus what the .deb depends on (first of each alternative), cached under
# a name of that list, so a change of dependencies makes a new one.
packages=$(tr ',' '\n' <<< "$depends" | sed 's/|.*//; s/(.*//; s/[[:space:]]//g' | grep . | paste -sd,)
debian_root debian12-root "$packages" || skip "$DEBIAN_ROOT_PROBLEM"
root=$SCRATCH/root
cp -a "$DEBIAN_ROOT" "$root" || fail "cannot copy $DEBIAN_ROOT"
cp "$deb" "$root/tmp/pdx.deb"

in_root "$root" dpkg -i /tmp/pdx.deb > "$SCRATCH/dpkg.log" 2>&1 || fail "dpkg -i: $(cat "$SCRATCH/dpkg.log")"
run_in_root "$root" pdx --version
expect_status 0
expect_contains "$out" "pdx " "pdx --version"
run_in_root "$root" pdx --compat-dir
expect_status 0
expect_eq "$out" "/usr/lib/pdx/bin" "--compat-dir"
run_in_root "$root" /usr/lib/pdx/bin/pdsh -V
expect_status 0
expect_contains "$out" "pdsh-2.34 (pdx " "pdsh -V"
run_in_root "$root" env PATH=/usr/lib/pdx/bin:/usr/bin:/bin pdsh -R exec -w a,b echo %h
expect_status 0
expect_eq "$(sort <<< "$out")" $'a: a\nb: b' "pdsh -R exec through the link"
for file in usr/share/bash-completion/completions/pdx usr/lib/pdx/bin/dshbak usr/lib/pdx/pdx-agent; do
  [[ -e $root/$file ]] || fail "not installed: $file ($(in_root "$root" dpkg -L pdx))"
done
ls "$root"/usr/share/man/man1/pdx.1* > /dev/null 2>&1 || fail "no man page installed"
if [[ -x $build/pdx-static ]]; then  # -DPDX_STATIC=ON: the agent push deploys, beside pdx
  [[ -x $root/usr/lib/pdx/pdx-static ]] || fail "not installed: usr/lib/pdx/pdx-static"
fi

# dpkg -r takes every file away again.
in_root "$root" dpkg -L pdx | sed 's#^/##' | grep . > "$SCRATCH/files"
in_root "$root" dpkg -r pdx > "$SCRATCH/dpkg.log" 2>&1 || fail "dpkg -r: $(cat "$SCRATCH/dpkg.log")"
left=$(cd "$root" && while read -r file; do [[ -f $file || -L $file ]] && echo "$file"; done < "$SCRATCH/files")
expect_eq "$left" "" "files left after dpkg -r"

# Without libssh2-1, dpkg refuses pdx for that dependency, and pdx is not left configured.
in_root "$root" dpkg --purge --force-depends libssh2-1 > "$SCRATCH/dpkg.log" 2>&1 ||
  fail "cannot remove libssh2-1 from the root: $(cat "$SCRATCH/dpkg.log")"
run_in_root "$root" dpkg -i /tmp/pdx.deb
expect_status 1
expect_contains "$err" "pdx depends on libssh2-1" "dpkg's refusal"
expect_eq "$(in_root "$root" dpkg-query -W -f='${Status}' pdx)" "install ok unpacked" "pdx's state"
true
