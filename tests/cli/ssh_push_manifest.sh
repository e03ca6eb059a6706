# pdx push --extract -m MANIFEST over ssh: each host's unpacked file count and bytes checked
# against what pdx pack -m wrote. A matching manifest passes; one of another archive fails every
# host with one line naming both figures (exit 1); a bad manifest is a usage error before any
# host is touched.
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

run_ssh -w "$hosts" push --extract -m "$SCRATCH/other.manifest" "$SCRATCH"/data.tar.zst.part-* extracted
expect_status 1
expect_eq "$out" "" "stdout with another archive's manifest"
expect_contains "$err" ": unpacked 8 files, $bytes bytes; the manifest says 1 file, 2 bytes"
expect_lines "$err" 1 "stderr with another archive's manifest"

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
