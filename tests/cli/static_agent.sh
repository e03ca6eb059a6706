# pdx-static (cmake -DPDX_STATIC=ON): a static binary (no dynamic section, no interpreter) that
# push deploys as the agent where pdx cannot run, and that runs on a Debian 12 root without pdx's libraries (minbase,
# where pdx itself cannot start): --version, agent --list, pack and unpack of a tar.zst, with the
# user and group names of the root's /etc/passwd and /etc/group (glibc's NSS files lookup, built
# into the static binary: it works with the root's libnss_*.so removed).
# Skips (77) when pdx-static is not built.
source "$(dirname "$0")/../lib/debian_root.sh"
source "$(dirname "$0")/../lib/push_common.sh"

static=$(dirname "$PDX")/pdx-static
if [[ ! -x $static ]]; then
  echo "SKIP [$TEST_NAME]: no $static (cmake -DPDX_STATIC=ON builds it)"
  exit 77
fi

readelf -d "$static" 2>&1 | grep -q "There is no dynamic section" ||
  fail "pdx-static is dynamically linked: $(readelf -d "$static" | grep NEEDED | head -3)"
readelf -l "$static" | grep -q INTERP && fail "pdx-static has a program interpreter"

# push deploys pdx without its symbols (a third of pdx-static's size), and pdx-static only where
# that cannot run (tests/cli/push_exec_static_fallback.sh): as on this root.
export HOME=$SCRATCH/home
echo data > "$SCRATCH/file"
run_pdx -R exec -w h1 push "$SCRATCH/file" "$SCRATCH/dest/"
expect_status 0
sha=$(sha256sum < "$(deployed_agent)" | cut -c1-64)
[[ -f $HOME/.cache/pdx/$sha/pdx ]] || fail "push did not deploy $(deployed_agent) as the agent"
(( $(stat -c %s "$(deployed_agent)") < $(stat -c %s "$static") )) ||
  fail "the agent deployed first is not the smaller"

debian_root debian12-minbase "" || fail "$DEBIAN_ROOT_PROBLEM"
root=$SCRATCH/root
cp -a "$DEBIAN_ROOT" "$root" || fail "cannot copy $DEBIAN_ROOT"
cp "$PDX" "$root/tmp/pdx"
run_in_root "$root" /tmp/pdx --version
expect_status 127  # the root is right: pdx's libraries are not there
expect_contains "$err" "error while loading shared libraries" "the dynamic pdx in the root"
cp "$HOME/.cache/pdx/$sha/pdx" "$root/tmp/pdx-agent"  # the agent push deployed: it cannot
run_in_root "$root" /tmp/pdx-agent --version
expect_status 127
expect_contains "$err" "error while loading shared libraries" "the deployed agent in the root"
cp "$static" "$root/tmp/pdx-static"

run_in_root "$root" /tmp/pdx-static --version
expect_status 0
expect_eq "$out" "$("$PDX" --version)" "pdx-static --version"

rm -f "$root"/usr/lib/x86_64-linux-gnu/libnss_*
mkdir -p "$root/data/sub"
printf 'one\n' > "$root/data/sub/one"
printf 'two\n' > "$root/data/two"
chown 1:1 "$root/data/two"  # daemon:daemon in the root's /etc/passwd and /etc/group
in_root "$root" /tmp/pdx-static agent --list=/data --under=sub --under=two < /dev/null \
  > "$SCRATCH/listing" || fail "agent --list failed with status $?"
# Each entry frame ('L', its u32 length, then the name's u32 length, the name and the kind byte)
# as NAME and KIND; DEST itself ("") left out.
listed=$(/usr/bin/python3 -c '
import struct, sys
data, at = sys.stdin.buffer.read(), 0
while at + 5 <= len(data):
    kind, size = data[at:at + 1], struct.unpack(">I", data[at + 1:at + 5])[0]
    payload, at = data[at + 5:at + 5 + size], at + 5 + size
    if kind == b"L":
        name = struct.unpack(">I", payload[:4])[0]
        if name:
            print(payload[4:5 + name].decode())
' < "$SCRATCH/listing" | LC_ALL=C sort | paste -sd' ')
expect_eq "$listed" "sub/onef subd twof" "the names (and types) agent --list sent"

run_in_root "$root" /tmp/pdx-static pack -o /tmp/data.tar.zst /data
expect_status 0
names=$(tar --zstd -tvf "$root/tmp/data.tar.zst" | awk '{ print $2, $NF }' | LC_ALL=C sort | paste -sd' ')
expect_eq "$names" "daemon/daemon data/two root/root data/ root/root data/sub/ root/root data/sub/one" \
  "owners and names in the archive"

# Unpacked as root, the owner is found by its name (uid 4242 in the archive is daemon's name).
tar --zstd --owner=daemon:4242 --group=daemon:4343 -C "$root" -cf "$root/tmp/owned.tar.zst" data
run_in_root "$root" /tmp/pdx-static unpack -C /tmp/out /tmp/owned.tar.zst
expect_status 0
diff -r "$root/data" "$root/tmp/out/data" > /dev/null || fail "unpacked tree differs from /data"
expect_eq "$(stat -c %u:%g "$root/tmp/out/data/two")" "1:1" "owner of an unpacked file"
true
