# pdx pull never writes outside LOCAL/<host>/ whatever a host sends: a tar stream with '..',
# an absolute name, a symlink and then a file through it, or a device file fails that host,
# named, and the other hosts complete; a set-user-ID file owned by root arrives as the user's,
# without the bit (also when pdx runs as root).
source "$(dirname "$0")/../lib/common.sh"

# A `tar` first on PATH: on hosts named evil-*, the hostile archive of the host's name; else the
# real tar. -R exec puts PDX_HOST in the command's environment.
mkdir -p "$SCRATCH/bin" "$SCRATCH/src" "$SCRATCH/outside"
echo fine > "$SCRATCH/src/f"
python3 - "$SCRATCH" <<'PY'
import io, sys, tarfile
scratch = sys.argv[1]
def archive(name, entries):
    with tarfile.open(f"{scratch}/{name}.tar", "w", format=tarfile.GNU_FORMAT) as t:
        for kind, path, data in entries:
            info = tarfile.TarInfo(path)
            if kind == "suid":
                info.mode, info.uid, info.size = 0o4755, 0, len(data)
                t.addfile(info, io.BytesIO(data))
            elif kind == "device":
                info.type, info.devmajor, info.mode = tarfile.BLKTYPE, 8, 0o666
                t.addfile(info)
            elif kind == "file":
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
            else:
                info.type = tarfile.SYMTYPE
                info.linkname = data
                t.addfile(info)
archive("evil-dotdot", [("file", "ok", b"ok"), ("file", "../../outside/dotdot", b"x")])
archive("evil-absolute", [("file", f"{scratch}/outside/absolute", b"x")])
archive("evil-device", [("device", "sda", None)])
archive("evil-suid", [("suid", "rootshell", b"#!/bin/sh\n")])
archive("evil-symlink", [("link", "link", f"{scratch}/outside"), ("file", "link/through", b"x")])
PY
real_tar=$(command -v tar)
cat > "$SCRATCH/bin/tar" <<SH
#!/bin/sh
case \$PDX_HOST in
  evil-*) exec cat "$SCRATCH/\$PDX_HOST.tar" ;;
  *) exec "$real_tar" "\$@" ;;
esac
SH
chmod +x "$SCRATCH/bin/tar"

PATH=$SCRATCH/bin:$PATH run_pdx pull -R exec -w 'good[1-2],evil-dotdot,evil-absolute,evil-symlink,evil-device,evil-suid' \
  "$SCRATCH/src/f" "$SCRATCH/out"
expect_status 1
expect_contains "$err" "pdx: evil-suid,good[1-2]: pulled" "summary"
expect_contains "$err" "pdx: evil-dotdot: entry ../../outside/dotdot: path with '..' refused"
expect_contains "$err" "pdx: evil-absolute: entry $SCRATCH/outside/absolute: absolute path refused"
expect_contains "$err" "pdx: evil-symlink: entry link/through: refused: link is a symlink"
expect_contains "$err" "pdx: evil-device: entry sda is a device file; refused"
expect_eq "$(stat -c '%u %a' "$SCRATCH/out/evil-suid/rootshell")" "$EUID 755" "set-user-ID file"
[[ ! -e $SCRATCH/out/evil-device/sda ]] || fail "a device file was made"
expect_eq "$(ls -A "$SCRATCH/outside")" "" "files outside LOCAL/<host>/"
expect_eq "$(cat "$SCRATCH/out/good2/f")" fine "a good host's file"
expect_eq "$(cat "$SCRATCH/out/evil-dotdot/ok")" ok "the entry before the refused one"
# Nothing half-written or temporary left under any host's directory.
expect_eq "$(find "$SCRATCH/out" -name '.*pdx-*' | wc -l)" 0 "temporary files"
true
