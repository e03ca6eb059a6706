# The agent removed from the host after push listed DEST (its ~/.cache/pdx, as on an account
# shared by other runs), on a host that cannot run pdx (its libraries missing: the dynamic
# loader's words, exit 127), is deployed again as the listing's step does: pdx, then its static
# build, said once; and a copy of the static build no longer as uploaded (status 93) is uploaded
# again. The push completes. Skips (77) without pdx-static or objcopy.
source "$(dirname "$0")/../lib/push_common.sh"
static_fallback_setup
static_cache=$HOME/.cache/pdx/$static_sha
# cache_static ACTION: the host's copy of the static build, which runs the real one and then,
# once it listed DEST, does ACTION. pdx runs only what it uploaded (its size, and its SHA-256
# unless `ok` is newer than the copy): the script is padded to its size.
cache_static() {
  mkdir -p "$static_cache"
  printf '#!/bin/sh\n"%s" "$@"\ns=$?\ncase "$2" in --list=*) %s ;; esac\nexit $s\n' \
    "$static" "$1" > "$static_cache/pdx"
  truncate -s "$(stat -c %s "$static")" "$static_cache/pdx"
  chmod 0755 "$static_cache/pdx"
  touch "$static_cache/ok"
}
# The host's mv puts, where the upload renames pdx into place, a copy that the loader cannot run.
loader="$cache/pdx: error while loading shared libraries: libcrypto.so.3: cannot open shared object file: No such file or directory"
printf '#!/bin/sh\necho "%s" >&2\nexit 127\n' "$loader" > "$SCRATCH/cannot-run"
truncate -s "$(stat -c %s "$agent")" "$SCRATCH/cannot-run"
chmod 0755 "$SCRATCH/cannot-run"
mkdir -p "$SCRATCH/bin"
cat > "$SCRATCH/bin/mv" <<MV
#!/bin/sh
if [ "\$3" = "$cache/pdx" ]; then cp "$SCRATCH/cannot-run" "\$3" && rm -f "\$2"; else exec /bin/mv "\$@"; fi
MV
chmod 0755 "$SCRATCH/bin/mv"

cache_static "rm -rf '$HOME/.cache/pdx'"
# -u: the listing and the receive are two commands (as with a direct link or a relay), where an
# agent gone since the listing matters; without it the agent that listed takes the stream itself.
PATH=$SCRATCH/bin:$PATH run_pdx -R exec -w h1 -u 3600 push "$SCRATCH/src" "$SCRATCH/dest/"
expect_status 0
expect_eq "$out" "pdx: h1: 3.0 MiB in 8 files" "summary"
expect_eq "$err" "pdx: warning: h1: pdx cannot run there ($loader); its static build was uploaded instead, and runs there from now on" "stderr"
same_tree "$SCRATCH/src" "$SCRATCH/dest/src"
no_leftovers "$SCRATCH/dest"
cmp -s "$static" "$static_cache/pdx" || fail "the static build was not deployed again"
cmp -s "$SCRATCH/cannot-run" "$cache/pdx" || fail "pdx was not deployed first"

# The static build's copy cut short after the listing: uploaded again, said once.
cache_static "truncate -s 1000 '$static_cache/pdx'"
PATH=$SCRATCH/bin:$PATH run_pdx -R exec -w h1 -u 3600 push "$SCRATCH/src" "$SCRATCH/dest2/"
expect_status 0
expect_eq "$out" "pdx: h1: 3.0 MiB in 8 files" "summary of the second push"
expect_contains "$err" "h1: the agent cached there was not as pdx left it" "stderr of the second push"
same_tree "$SCRATCH/src" "$SCRATCH/dest2/src"
no_leftovers "$SCRATCH/dest2"
cmp -s "$static" "$static_cache/pdx" || fail "the static build was not uploaded again"
