# The self-deployed agent is removed from the host (its ~/.cache/pdx, as on an account shared by
# other runs) after push listed DEST and before the files go: pdx deploys it again, once, and
# sends that host its files from the start; the push completes.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
make_tree "$SCRATCH/src"
agent=$(deployed_agent)
sha=$(sha256sum < "$agent" | cut -c1-64)
cache=$HOME/.cache/pdx/$sha
mkdir -p "$cache"
# The cached agent: the real one, which removes the whole cache after it has listed. pdx runs
# only what it uploaded (its size and SHA-256): the wrapper is padded to its size, and the
# host's sha256sum (first on PATH) says it is the agent.
cat > "$cache/pdx" <<WRAPPER
#!/bin/sh
"$agent" "\$@"
s=\$?
case "\$2" in --list=*) rm -rf "$HOME/.cache/pdx" ;; esac
exit \$s
WRAPPER
truncate -s "$(stat -c %s "$agent")" "$cache/pdx"
chmod 0755 "$cache/pdx"
mkdir -p "$SCRATCH/bin"
printf '#!/bin/sh\ncat > /dev/null; echo "%s  -"\n' "$sha" > "$SCRATCH/bin/sha256sum"
chmod 0755 "$SCRATCH/bin/sha256sum"

# -u: the listing and the receive are two commands (as with a direct link or a relay), where an
# agent gone since the listing matters; without it the agent that listed takes the stream itself.
PATH=$SCRATCH/bin:$PATH run_pdx -R exec -w h1 -u 3600 push "$SCRATCH/src" "$SCRATCH/dest/"
expect_status 0
expect_eq "$out" "pdx: h1: 3.0 MiB in 8 files" "summary"
expect_eq "$err" "" "stderr"
same_tree "$SCRATCH/src" "$SCRATCH/dest/src"
no_leftovers "$SCRATCH/dest"
cmp -s "$agent" "$cache/pdx" || fail "the agent was not deployed again"
