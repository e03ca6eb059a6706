# cmake --install: pdx, its man page and bash completion in place, and the pdsh, pdcp, rpdcp and dshbak links
# in PREFIX/lib/pdx/bin (not in PREFIX/bin, so a real pdsh is not shadowed); `pdx --compat-dir`
# prints that directory; PREFIX/lib/pdx/pdx-agent, the agent alone, which the installed pdx
# deploys as push's agent (its copy without symbols). With -DPDX_STATIC=ON, PREFIX/lib/pdx/pdx-static
# too, and the installed pdx deploys that one as push's agent where pdx cannot run. The build directory is the one holding $PDX.
source "$(dirname "$0")/../lib/common.sh"

build=$(dirname "$PDX")
prefix=$SCRATCH/p
cmake --install "$build" --prefix "$prefix" > "$SCRATCH/install.log" 2>&1 || fail "install: $(cat "$SCRATCH/install.log")"
for file in bin/pdx share/man/man1/pdx.1 share/bash-completion/completions/pdx lib/pdx/bin/pdsh lib/pdx/bin/pdcp lib/pdx/bin/rpdcp lib/pdx/bin/dshbak lib/pdx/pdx-agent; do
  [[ -e $prefix/$file ]] || fail "not installed: $file"
done
[[ -e $prefix/bin/pdsh ]] && fail "pdsh installed in bin/, shadowing a real pdsh"
expect_eq "$(readlink "$prefix/lib/pdx/bin/pdsh")" "../../../bin/pdx" "relative link"

PDX=$prefix/lib/pdx/bin/pdsh run_pdx -V
expect_status 0
expect_contains "$out" "pdsh-2.34 (pdx " "pdsh -V"
PDX=$prefix/bin/pdx run_pdx --version
expect_contains "$out" "pdx " "pdx --version"
PDX=$prefix/bin/pdx run_pdx --compat-dir
expect_status 0
expect_eq "$out" "$prefix/lib/pdx/bin" "--compat-dir"
PATH=$out:$PATH command -v pdsh | grep -qx "$prefix/lib/pdx/bin/pdsh" || fail "pdsh not found first in PATH"

if command -v objcopy > /dev/null; then
  objcopy --strip-all "$prefix/lib/pdx/pdx-agent" "$SCRATCH/agent-alone"
  sha=$(sha256sum < "$SCRATCH/agent-alone" | cut -c1-64)
  mkdir -p "$SCRATCH/home-alone"
  echo data > "$SCRATCH/alone-file"
  HOME=$SCRATCH/home-alone PDX=$prefix/bin/pdx run_pdx -R exec -w h1 push "$SCRATCH/alone-file" "$SCRATCH/alone-dest/"
  expect_status 0
  [[ -x $SCRATCH/home-alone/.cache/pdx/$sha/pdx ]] ||
    fail "the installed pdx did not deploy lib/pdx/pdx-agent: $(ls "$SCRATCH/home-alone/.cache/pdx")"
fi

if [[ -x $build/pdx-static ]]; then
  static=$prefix/lib/pdx/pdx-static
  [[ -x $static ]] || fail "not installed: lib/pdx/pdx-static"
  # A host's copy of it (uploaded there when pdx could not run there) is what runs.
  cache=$SCRATCH/home/.cache/pdx/$(sha256sum < "$static" | cut -c1-64)
  mkdir -p "$cache"
  chmod 0755 "$SCRATCH/home" "$SCRATCH/home/.cache" "$SCRATCH/home/.cache/pdx" "$cache"
  cp "$static" "$cache/pdx"
  echo data > "$SCRATCH/file"
  HOME=$SCRATCH/home PDX=$prefix/bin/pdx run_pdx -R exec -w h1 push "$SCRATCH/file" "$SCRATCH/dest/"
  expect_status 0
  [[ -e $cache/used ]] || fail "the installed pdx did not run $static: $(ls "$SCRATCH/home/.cache/pdx")"
fi

run_pdx --compat-dir  # the build tree's pdx has no links next to it
expect_status 1
expect_contains "$err" "pdx: error: no pdsh link next to this pdx"
true
