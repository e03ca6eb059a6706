#!/usr/bin/env bash
# pdx pack/unpack against the tools people use today, on generated data sets, in one run.
#
#   bench/bench-archive.sh [PDX]         PDX defaults to build/pdx
#   BENCH_MB=256 bench/bench-archive.sh  a smaller data set (default 1024 MiB; 0: none)
#   BENCH_SMALL=20000                    files in the small-file set (default 100000; 0: none)
#   BENCH_REPEAT=5                       runs per small-file command, best kept (default 3)
#   BENCH_TMP=/scratch                   where the data sets and archives go (default /tmp)
#
# The data set: 40% compressible text, 40% random bytes, 20% small files (10 KiB each, text).
# Every command runs once, from a warm page cache; CPU is user+sys of the command and its
# children. Ratio is data set size / archive size.
#
# The small-file set: BENCH_SMALL files of 0-4 KiB (half random, half text) in 100 directories,
# packed once by GNU tar (plain, gzip, zstd) and by zip, then unpacked by pdx and by tar (unzip);
# the best wall and CPU of BENCH_REPEAT runs each, and pdx/tar (pdx/unzip) ratios. Every run
# unpacks into a new directory, removed after it -- except on ext4 without a journal, where creating files is slow for
# minutes after many were deleted (the inode allocator skips recently freed inodes): there all
# stay until the end, about 0.5 GiB per run with the default.
#
# Needs tar, gzip, pigz, bzip2, xz, zstd, zip, unzip, split and python3 (Debian packages of those
# names).
set -euo pipefail

PDX=$(realpath "${1:-build/pdx}")
MB=${BENCH_MB:-1024}
SMALL=${BENCH_SMALL:-100000}
REPEAT=${BENCH_REPEAT:-3}
WORK=$(mktemp -d "${BENCH_TMP:-/tmp}/bench-archive.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

large_set() {
  echo "generating ${MB} MiB in $WORK ..." >&2
  python3 - "$MB" <<'PY'
import os, random, sys
mb = int(sys.argv[1])
random.seed(1)
words = ["".join(random.choices("abcdefghijklmnopqrstuvwxyz", k=random.randint(2, 10)))
         for _ in range(5000)]
def text(size):
    out, n = [], 0
    while n < size:
        line = " ".join(random.choices(words, k=12)) + " %d\n" % random.randint(0, 10**9)
        out.append(line)
        n += len(line)
    return "".join(out)[:size]
os.makedirs("data/text"); os.makedirs("data/random"); os.makedirs("data/small")
chunk = text(8 << 20)
for i in range(mb * 4 // 10 // 8):  # 8 MiB text files, each shuffled differently
    lines = chunk.splitlines(True)
    random.shuffle(lines)
    open(f"data/text/t{i:03}.txt", "w").write("".join(lines))
for i in range(mb * 4 // 10 // 8):
    open(f"data/random/r{i:03}.bin", "wb").write(os.urandom(8 << 20))
small = text(10 << 10)
for i in range(mb * 2 // 10 * 100):  # 10 KiB each
    d = f"data/small/d{i // 1000:03}"
    os.makedirs(d, exist_ok=True)
    open(f"{d}/f{i:05}.txt", "w").write(small[i % 97:] + small[:i % 97])
PY
  DATA_BYTES=$(du -sb data | cut -f1)
  sync

  ROWS=()
  # run LABEL OP OUTPUT COMMAND...: time COMMAND; OUTPUT (a file, or a glob of parts) sized.
  run() {
    local label=$1 op=$2 output=$3
    shift 3
    /usr/bin/time -f '%e %U %S' -o time.out bash -c "$*" >/dev/null 2>&1 ||
      echo "warning: $label $op failed" >&2
    local wall cpu size=-
    read -r wall user sys <time.out
    cpu=$(printf '%.2f' "$(echo "$user + $sys" | bc)")
    if [ "$op" = pack ]; then
      size=$(cat $output | wc -c)
    fi
    ROWS+=("$label"$'\t'"$op"$'\t'"$wall"$'\t'"$cpu"$'\t'"$size")
    echo "  $label $op: ${wall}s" >&2
  }
  fresh() { rm -rf out && mkdir out; }

  echo "packing ..." >&2
  run "pdx tar.gz"            pack a.tar.gz  "'$PDX' pack data -o a.tar.gz"
  run "tar -czf"              pack b.tar.gz  "tar -czf b.tar.gz data"
  run "tar -I pigz"           pack c.tar.gz  "tar -I pigz -cf c.tar.gz data"
  run "pdx tar.xz"            pack a.tar.xz  "'$PDX' pack data -o a.tar.xz"
  run "tar -cJf"              pack b.tar.xz  "tar -cJf b.tar.xz data"
  run "tar -I 'xz -T0'"       pack c.tar.xz  "tar -I 'xz -T0' -cf c.tar.xz data"
  run "pdx tar.zst"           pack a.tar.zst "'$PDX' pack data -o a.tar.zst"
  run "tar -I 'zstd -T0'"     pack c.tar.zst "tar -I 'zstd -T0' -cf c.tar.zst data"
  run "pdx tar.bz2"           pack a.tar.bz2 "'$PDX' pack data -o a.tar.bz2"
  run "tar -cjf"              pack b.tar.bz2 "tar -cjf b.tar.bz2 data"
  run "pdx zip"               pack a.zip     "'$PDX' pack data -o a.zip"
  run "zip -r"                pack b.zip     "zip -qr b.zip data"
  run "pdx tar"               pack a.tar     "'$PDX' pack data -o a.tar"
  run "tar -cf"               pack b.tar     "tar -cf b.tar data"
  run "pdx tar.zst --split"   pack "s.tar.zst.part-*" "'$PDX' pack data -o s.tar.zst --split 100M"
  run "tar zstd -T0 | split"  pack "g.tar.zst.part-*" \
    "tar -I 'zstd -T0' -cf - data | split -b 100M -d -a 2 - g.tar.zst.part-"

  echo "unpacking ..." >&2
  fresh; run "pdx tar.gz"          unpack - "'$PDX' unpack a.tar.gz -C out"
  fresh; run "tar -xzf"            unpack - "tar -xzf b.tar.gz -C out"
  fresh; run "tar -I pigz -x"      unpack - "tar -I pigz -xf c.tar.gz -C out"
  fresh; run "pdx tar.xz"          unpack - "'$PDX' unpack a.tar.xz -C out"
  fresh; run "tar -xJf"            unpack - "tar -xJf b.tar.xz -C out"
  fresh; run "tar -I 'xz -T0' -x"  unpack - "tar -I 'xz -T0' -xf c.tar.xz -C out"
  fresh; run "pdx tar.zst"         unpack - "'$PDX' unpack a.tar.zst -C out"
  fresh; run "tar -I zstd -x"      unpack - "tar -I zstd -xf c.tar.zst -C out"
  fresh; run "pdx tar.bz2"         unpack - "'$PDX' unpack a.tar.bz2 -C out"
  fresh; run "tar -xjf"            unpack - "tar -xjf b.tar.bz2 -C out"
  fresh; run "pdx zip"             unpack - "'$PDX' unpack a.zip -C out"
  fresh; run "unzip"               unpack - "unzip -q b.zip -d out"
  fresh; run "pdx tar"             unpack - "'$PDX' unpack a.tar -C out"
  fresh; run "tar -xf"             unpack - "tar -xf b.tar -C out"
  fresh; run "pdx parts"           unpack - "'$PDX' unpack s.tar.zst -C out"
  fresh; run "cat parts | tar -x"  unpack - "cat g.tar.zst.part-* | tar -I zstd -xf - -C out"

  printf '\ndata set: %s bytes (%d MiB), %s files, %s cores\n\n' "$DATA_BYTES" "$MB" \
    "$(find data -type f | wc -l)" "$(nproc)"
  printf '%-22s %-6s %8s %8s %12s %7s\n' tool op "wall s" "cpu s" "size MiB" ratio
  for row in "${ROWS[@]}"; do
    IFS=$'\t' read -r label op wall cpu size <<<"$row"
    if [ "$size" = - ]; then
      printf '%-22s %-6s %8s %8s %12s %7s\n' "$label" "$op" "$wall" "$cpu" - -
    else
      printf '%-22s %-6s %8s %8s %12.1f %7.2f\n' "$label" "$op" "$wall" "$cpu" \
        "$(echo "$size / 1048576" | bc -l)" "$(echo "$DATA_BYTES / $size" | bc -l)"
    fi
  done
}

# best CMD: the best wall and the best CPU of REPEAT runs of CMD, as "wall cpu"; each run
# unpacks into a new directory, $OUT in CMD.
best() {
  local best_wall=999999 best_cpu=999999 out wall user sys cpu
  for _ in $(seq "$REPEAT"); do
    out=$(mktemp -d "$WORK/small/out.XXXXXX")
    OUT=$out /usr/bin/time -f '%e %U %S' -o time.out bash -c "$1" >/dev/null 2>&1 ||
      echo "warning: $1 failed" >&2
    if [ -z "$KEEP_OUTPUT" ]; then rm -rf "$out"; fi
    read -r wall user sys <time.out
    cpu=$(echo "$user + $sys" | bc)
    best_wall=$(echo "if ($wall < $best_wall) $wall else $best_wall" | bc)
    best_cpu=$(echo "if ($cpu < $best_cpu) $cpu else $best_cpu" | bc)
  done
  echo "$best_wall $best_cpu"
}

small_set() {
  local device
  device=$(basename "$(df --output=source "$WORK" | tail -1)")
  KEEP_OUTPUT=
  if [ "$(cat "/sys/fs/ext4/$device/journal_task" 2>/dev/null)" = "<none>" ]; then KEEP_OUTPUT=1; fi
  echo "generating $SMALL small files in $WORK/small ..." >&2
  mkdir small
  (cd small && python3 - "$SMALL" <<'PY'
import os, random, sys
n = int(sys.argv[1])
random.seed(2)
for i in range(n):
    d = f"data/d{i * 100 // n:02}"
    os.makedirs(d, exist_ok=True)
    size = random.randint(0, 4096)
    text = ((str(i) + " ") * 1000)[: size - size // 2].encode()
    open(f"{d}/f{i:06}", "wb").write(random.randbytes(size // 2) + text)
PY
  )
  (cd small && tar -cf s.tar data && gzip -k s.tar && zstd -q -k s.tar && zip -qr s.zip data)
  sync
  local format tool into pdx_wall pdx_cpu wall cpu lines=()
  for format in tar tar.gz tar.zst zip; do
    echo "  unpacking $format ..." >&2
    read -r pdx_wall pdx_cpu < <(best "'$PDX' unpack small/s.$format -C \"\$OUT\"")
    into=-C
    case $format in
      tar) tool="tar -xf" ;;
      tar.gz) tool="tar -xzf" ;;
      tar.zst) tool="tar -I zstd -xf" ;;
      zip) tool="unzip -q" into=-d ;;
    esac
    read -r wall cpu < <(best "$tool small/s.$format $into \"\$OUT\"")
    lines+=("$(printf '%-22s %8.2f %8.2f' "pdx $format" "$pdx_wall" "$pdx_cpu")")
    lines+=("$(printf '%-22s %8.2f %8.2f   pdx/%s: wall %.2f cpu %.2f' "$tool" "$wall" "$cpu" \
      "${tool%% *}" "$(echo "$pdx_wall / $wall" | bc -l)" "$(echo "$pdx_cpu / $cpu" | bc -l)")")
  done
  printf '\n%s files of 0-4 KiB in 100 directories, unpacked on %s (best of %s), %s cores\n\n' \
    "$SMALL" "$(stat -f -c %T "$WORK")" "$REPEAT" "$(nproc)"
  printf '%-22s %8s %8s\n' tool "wall s" "cpu s"
  printf '%s\n' "${lines[@]}"
}

if [ "$MB" -gt 0 ]; then large_set; fi
if [ "$SMALL" -gt 0 ]; then small_set; fi
