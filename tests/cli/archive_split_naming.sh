# Part names sort with a shell glob, running out of suffixes is an error that leaves nothing,
# and existing outputs are never overwritten silently.
source "$PDX_SRC/tests/lib/archive_common.sh"
mkdir src && head -c 1300000 /dev/urandom >src/random.bin

# 1.3 MB in 100K parts: 13 or more parts, so two digits, and glob order is numeric order.
"$PDX" pack src -o a.tar --split 100K
parts=(a.tar.part-*)
[ "${parts[0]}" = a.tar.part-00 ] || fail "first part is ${parts[0]}, not a.tar.part-00"
[ ${#parts[@]} -ge 13 ] || fail "only ${#parts[@]} parts"
for i in "${!parts[@]}"; do
  [ "${parts[$i]}" = "$(printf 'a.tar.part-%02d' "$i")" ] || fail "glob order broken at ${parts[$i]}"
  [ "$i" = $((${#parts[@]} - 1)) ] || [ "$(stat -c %s "${parts[$i]}")" = 102400 ] ||
    fail "${parts[$i]} is not 100K"
done
cat a.tar.part-* | tar -t >/dev/null || fail "cat of the parts is no tar"

# Few parts: one digit, as in the issue's example (data.tar.zst.part-0).
"$PDX" pack src -o b.tar.zst --split 1M
[ -e b.tar.zst.part-0 ] && [ -e b.tar.zst.part-1 ] || fail "expected b.tar.zst.part-0 and -1: $(ls)"

# --suffix-length too small: pack finds out while writing and removes the parts it wrote.
expect_error 1 "c.tar: needs more than 10 parts.*--suffix-length" "$PDX" pack src -o c.tar --split 100K -a 1
[ -z "$(ls -A | grep '^c\.tar\|^\.c\.tar')" ] || fail "parts left after running out of suffixes: $(ls -A)"
# split knows the size first and refuses before writing anything.
expect_error 2 "13 parts needed, more than 10.*--suffix-length 2" "$PDX" split src/random.bin --size 100K -a 1 -o d
[ -z "$(ls -A | grep '^d\.part\|^\.d\.part')" ] || fail "split wrote parts before refusing"

# Existing outputs: refused; with --force replaced, and stale higher parts removed.
expect_error 1 "a.tar.part-00: already exists; remove it or pass --force" "$PDX" pack src -o a.tar --split 100K
"$PDX" pack src -o a.tar --split 1M -a 2 --force
[ "$(ls a.tar.part-* | wc -l)" = 2 ] || fail "--force left stale parts: $(ls a.tar.part-*)"
"$PDX" pack src -o e.tar
expect_error 1 "e.tar: already exists" "$PDX" pack src -o e.tar
"$PDX" pack src -o e.tar -f
expect_error 2 "cannot tell the format from the name 'e.data'" "$PDX" pack src -o e.data
expect_error 1 "cannot split standard output" "$PDX" pack src -o - --format tar --split 1M
expect_error 2 "invalid size '12Q'" "$PDX" pack src -o f.tar --split 12Q
echo ok
