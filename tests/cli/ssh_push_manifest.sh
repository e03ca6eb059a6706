# pdx push --extract -m MANIFEST over ssh: the parts checked against the manifest first, then
# each host's unpacked file count and bytes against what pdx pack -m wrote. A matching manifest
# passes; counts that differ fail every host with one line naming both figures (exit 1); another
# archive's manifest, or a bad one, is an error before any host is touched (exit 2).
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/push_common.sh"
n=4
hosts=$(head -n "$n" "$HOSTFILE" | paste -sd,)
clean_on_hosts "$n" extracted
clean_on_hosts "$n" untouched
make_tree "$SCRATCH/src"
mkdir "$SCRATCH/other"
printf 'x\n' > "$SCRATCH/other/x"
(cd "$SCRATCH" && "$PDX" pack src -o data.tar.zst --split 1M -m data.manifest &&
  "$PDX" pack other -o other.tar -m other.manifest) > /dev/null || fail "pack failed"
bytes=$(find "$SCRATCH/src" -type f -printf "%s\n" | paste -sd+ | bc)

run_ssh -w "$hosts" push --extract -m "$SCRATCH/data.manifest" "$SCRATCH"/data.tar.zst.part-* extracted
expect_status 0
expect_contains "$out" ": 3.0 MiB in 8 files"
expect_eq "$err" "" "stderr with the right manifest"

# Counts that differ from what the hosts unpacked (the parts are the manifest's).
sed 's/^# files .*/# files 1/; s/^# bytes .*/# bytes 2/' "$SCRATCH/data.manifest" > "$SCRATCH/counts.manifest"
run_ssh -w "$hosts" push --extract -m "$SCRATCH/counts.manifest" "$SCRATCH"/data.tar.zst.part-* extracted
expect_status 1
expect_eq "$out" "" "stdout with counts that differ"
expect_contains "$err" ": unpacked 8 files, $bytes bytes; the manifest says 1 file, 2 bytes"
expect_lines "$err" 1 "stderr with counts that differ"

# Another archive's manifest: its parts are not these, refused before any host is touched.
run_ssh -w "$hosts" push --extract -m "$SCRATCH/other.manifest" "$SCRATCH"/data.tar.zst.part-* untouched
expect_status 2
expect_contains "$err" "pdx: error: $SCRATCH/data.tar.zst.part-0: the manifest lists other.tar as part 0"

printf 'not a manifest\n' > "$SCRATCH/bad.manifest"
run_ssh -w "$hosts" push --extract -m "$SCRATCH/bad.manifest" "$SCRATCH"/data.tar.zst.part-* untouched
expect_usage_error
run_ssh -w "$hosts" push --extract -m "$SCRATCH/missing.manifest" "$SCRATCH"/data.tar.zst.part-* untouched
expect_usage_error
for i in $(seq "$n"); do
  [[ ! -e $(home_of "$i")/untouched ]] || fail "host $i touched despite a bad manifest"
done

run_ssh -w "$hosts" push -m "$SCRATCH/data.manifest" "$SCRATCH/src" untouched
expect_usage_error
