# Parts of two packs of the same layout, mixed; a middle part missing with the names closed up;
# a part of a set alone: refused naming the part, before anything is written in the target.
# Each framed part (tar.zst, tar.gz) begins with its pack id and index, which the standard
# tools skip.
source "$PDX_SRC/tests/lib/archive_common.sh"
mkdir -p a/d b/d
head -c 3000000 /dev/urandom >a/d/data.bin
head -c 3000000 /dev/urandom >b/d/data.bin  # the same layout, other bytes
for format in tar.zst tar.gz; do
  for threads in 1 2; do
    rm -rf pa pb mixed && mkdir pa pb mixed
    (cd a && "$PDX" pack d -o "../pa/x.$format" --split 512K -a 2 -j $threads)
    (cd b && "$PDX" pack d -o "../pb/x.$format" --split 512K -a 2 -j $threads)
    n=$(ls pa | wc -l)
    [ "$n" -ge 4 ] || fail "$format: expected 4 or more parts, got $n"
    for f in pa/*; do [ "$(stat -c %s "$f")" -le 524288 ] || fail "$f is larger than 512K"; done
    cp pa/* mixed/
    cp "pb/x.$format.part-02" mixed/
    expect_error 2 "mixed/x.$format.part-02: is part 2 of another pack" \
      "$PDX" unpack "mixed/x.$format" -C target
    [ ! -e target ] || fail "$format: something was written in target: $(ls -R target)"

    # A middle part missing, the later ones renamed to close the gap: the names look whole.
    rm -rf gap && cp -r pa gap
    rm "gap/x.$format.part-01"
    for ((i = 2; i < n; i++)); do
      mv "gap/x.$format.part-$(printf %02d $i)" "gap/x.$format.part-$(printf %02d $((i - 1)))"
    done
    expect_error 2 "gap/x.$format.part-01: is part 2 of pack [0-9a-f]{8} .*part 1 is missing" \
      "$PDX" unpack "gap/x.$format" -C target
    [ ! -e target ] || fail "$format: something was written in target"

    # The first part alone is not the archive.
    expect_error 2 "pa/x.$format.part-00: part 0 of pack [0-9a-f]{8} .*is not its last" \
      "$PDX" unpack "pa/x.$format.part-00" -C target
    [ ! -e target ] || fail "$format: something was written in target"

    # join checks the same, and joined parts unpack.
    expect_error 2 "mixed/x.$format.part-02: is part 2 of another pack" \
      "$PDX" join "mixed/x.$format" -o joined
    [ ! -e joined ] || fail "join wrote a file"
    "$PDX" join "pa/x.$format" -o "joined.$format"
    "$PDX" unpack "joined.$format" -C target
    cmp target/d/data.bin a/d/data.bin || fail "$format: joined parts unpacked wrong"
    rm -rf target "joined.$format"
    "$PDX" unpack "pa/x.$format" -C target
    cmp target/d/data.bin a/d/data.bin || fail "$format: parts unpacked wrong"
    rm -rf target
  done
done
echo ok
