# pdx push --no-agent of a tree whose names are not all UTF-8 (bytes 0xff, 0xfe, and UTF-8 that
# the C locale cannot convert): every file lands byte for byte under its own name, the ones after
# it too, directories with their mtimes and modes (0555 too); a run again is up to date, and a
# changed file alone goes again.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
src=$SCRATCH/src
make_tree "$src"
mkdir -p "$src/"$'dir\xfe'/inner
printf 'bad\n' > "$src/"$'bad\xff'
printf 'cafe\n' > "$src/"$'caf\xc3\xa9'
printf 'inner\n' > "$src/"$'dir\xfe'/inner/$'\xfe'
printf 'last\n' > "$src/zzz"
chmod 0750 "$src/"$'dir\xfe'
chmod 0555 "$src/sub dir/deeper"
touch -d '2001-02-03 04:05:06.123456789' "$src/"$'dir\xfe'/inner "$src/"$'dir\xfe' "$src/sub dir/deeper" "$src/sub dir" "$src"
warning="pdx: warning: h[1-2]: the agent cannot run there (--no-agent); pushing with the host's sh and tar (slower)"

# dirs_of DIR: each directory's name, mode and mtime (to the nanosecond).
dirs_of() { (cd "$1" && find . -type d -printf '%P %m %T@\n' | sort); }

run_pdx -R exec -w 'h[1-2]' push --no-agent "$src" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-2]: 3.0 MiB in 12 files" "summary"
expect_eq "$err" "$warning" "warnings"
for h in h1 h2; do
  same_tree "$src" "$SCRATCH/dest/$h/src"
  [[ $(dirs_of "$src") == "$(dirs_of "$SCRATCH/dest/$h/src")" ]] ||
    fail "$h: directories' modes or mtimes differ: $(diff <(dirs_of "$src") <(dirs_of "$SCRATCH/dest/$h/src") | head -4)"
done

run_pdx -R exec -w 'h[1-2]' push --no-agent "$src" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-2]: up to date" "summary (again)"
printf 'changed\n' > "$src/"$'bad\xff'
run_pdx -R exec -w 'h[1-2]' push --no-agent "$src" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h[1-2]: 8 B in 1 file" "summary (changed)"
for h in h1 h2; do same_tree "$src" "$SCRATCH/dest/$h/src"; done
chmod -R u+w "$src" "$SCRATCH/dest"  # for the scratch space to go, as any user
