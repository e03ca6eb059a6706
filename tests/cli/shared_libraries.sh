# pdx links libarchive from its .a file (cmake/StaticLibarchive.cmake): no host needs libarchive
# to run the agent, and pdx loads neither it nor what it brings (libxml2, ICU, nettle, acl, lz4),
# which were a fifth of its start's page faults. Its archives still read and write: zip, and
# tar.xz through libarchive's xz filter (liblzma, shared).
source "$(dirname "$0")/../lib/common.sh"

needed=$(readelf -d "$PDX" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
expect_contains "$needed" "libssh2.so" "pdx's NEEDED"
loaded=$(ldd "$PDX" | awk '{ print $1 }')
expect_contains "$loaded" "libcrypto.so" "the shared objects pdx loads"
for library in libarchive libxml2 libicu libnettle libacl liblz4; do
  [[ $loaded != *"$library"* ]] || fail "pdx loads $library: $(paste -sd' ' <<< "$loaded")"
done

mkdir -p "$SCRATCH/src/sub"
echo one > "$SCRATCH/src/sub/one"
cd "$SCRATCH" || fail "cannot cd to $SCRATCH"
for name in data.tar.zst data.tar.xz data.zip; do
  run_pdx pack -o "$name" src
  expect_status 0
  run_pdx unpack "$name" -C "out-$name"
  expect_status 0
  expect_eq "$(cat "out-$name/src/sub/one")" "one" "$name unpacked"
done
