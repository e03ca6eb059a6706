# A host that cannot run the agent deployed first, pdx without its symbols (its libraries missing
# there: the dynamic loader's words on stderr, exit 127), is sent the static build instead, said
# once, and runs it from then on; the copy that could not run is left as it was. A copy of the
# static build that is not as uploaded is uploaded again. Skips (77) without pdx-static or
# objcopy (then only one binary is deployed).
source "$(dirname "$0")/../lib/push_common.sh"
static_fallback_setup
mkdir -p "$cache"
# The host's copy of the agent as the loader would run it there. pdx runs only what it uploaded
# (its size and SHA-256): the script is padded to its size, and the host's sha256sum (first on
# PATH) says it is the agent (and hashes all else).
loader="$cache/pdx: error while loading shared libraries: libcrypto.so.3: cannot open shared object file: No such file or directory"
printf '#!/bin/sh\necho "%s" >&2\nexit 127\n' "$loader" > "$cache/pdx"
truncate -s "$(stat -c %s "$agent")" "$cache/pdx"
chmod 0755 "$cache/pdx"
cp "$cache/pdx" "$SCRATCH/cannot-run"
mkdir -p "$SCRATCH/bin"
cat > "$SCRATCH/bin/sha256sum" <<SHA
#!/bin/sh
t=\$(mktemp) && cat > "\$t" || exit 1
if cmp -s "\$t" "$SCRATCH/cannot-run"; then echo "$sha  -"; else /usr/bin/sha256sum < "\$t"; fi
s=\$?
rm -f "\$t"
exit \$s
SHA
chmod 0755 "$SCRATCH/bin/sha256sum"

PATH=$SCRATCH/bin:$PATH run_pdx -R exec -w h1 push "$SCRATCH/src" "$SCRATCH/dest/"
expect_status 0
expect_eq "$out" "pdx: h1: 3.0 MiB in 8 files" "summary"
expect_eq "$err" "pdx: warning: h1: pdx cannot run there ($loader); its static build was uploaded instead, and runs there from now on" "stderr"
same_tree "$SCRATCH/src" "$SCRATCH/dest/src"
cmp -s "$static" "$HOME/.cache/pdx/$static_sha/pdx" || fail "the static build was not deployed"
cmp -s "$SCRATCH/cannot-run" "$cache/pdx" || fail "the copy that cannot run was changed"

# From then on the static build runs there: nothing uploaded, nothing said.
PATH=$SCRATCH/bin:$PATH run_pdx -R exec -w h1 push "$SCRATCH/src" "$SCRATCH/dest2/"
expect_status 0
expect_eq "$err" "" "stderr of the second push"
same_tree "$SCRATCH/src" "$SCRATCH/dest2/src"
[[ -e $HOME/.cache/pdx/$static_sha/used ]] || fail "the static build was not run"

# Its copy cut short: not run, uploaded again (the static build, not the other).
truncate -s 1000 "$HOME/.cache/pdx/$static_sha/pdx"
PATH=$SCRATCH/bin:$PATH run_pdx -R exec -w h1 push "$SCRATCH/src" "$SCRATCH/dest3/"
expect_status 0
expect_contains "$err" "h1: the agent cached there was not as pdx left it" "stderr of the third push"
same_tree "$SCRATCH/src" "$SCRATCH/dest3/src"
cmp -s "$static" "$HOME/.cache/pdx/$static_sha/pdx" || fail "the static build was not uploaded again"
cmp -s "$SCRATCH/cannot-run" "$cache/pdx" || fail "the copy that cannot run was changed"
