# 100,000 small files in nested directories pack, split and unpack, and GNU tar agrees.
source "$PDX_SRC/tests/lib/archive_common.sh"
python3 - <<'PY'
import os
for d in range(100):
    os.makedirs(f"src/d{d:02}")
    for f in range(1000):
        with open(f"src/d{d:02}/f{f:03}", "w") as out:
            out.write(f"{d} {f}\n")
PY
"$PDX" pack src -o a.tar.zst --split 256K
"$PDX" unpack a.tar.zst -C x
[ "$(find x/src -type f | wc -l)" = 100000 ] || fail "not 100000 files unpacked"
# Names, sizes and modes of all; contents of a sample (reading 200,000 files is slow on a busy disk).
diff <(cd src && find . -printf '%P %s %m\n' | sort) <(cd x/src && find . -printf '%P %s %m\n' | sort) \
  >/dev/null || fail "100000-file round trip differs"
for f in d00/f000 d42/f123 d99/f999; do cmp "src/$f" "x/src/$f" || fail "$f differs"; done
[ "$(cat a.tar.zst.part-* | tar --zstd -t | wc -l)" = 100101 ] || fail "GNU tar lists a different count"
echo ok
