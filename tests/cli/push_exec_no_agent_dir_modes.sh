# pdx push --no-agent into directories that are already on the host: they get the source's modes
# and mtimes too, as new ones do (rsync -a), set after their contents; a symlink on the way is
# never followed doing it; a run again is up to date.
source "$(dirname "$0")/../lib/push_common.sh"
export HOME=$SCRATCH/home
src=$SCRATCH/src
mkdir -p "$src/priv/deeper" "$src/open" "$src/linked"
printf 'a\n' > "$src/priv/a"
printf 'b\n' > "$src/priv/deeper/b"
printf 'c\n' > "$src/linked/c"
chmod 0750 "$src/priv"
chmod 0700 "$src/priv/deeper"
chmod 0775 "$src/open"
touch -d '2001-02-03 04:05:06.123456789' "$src/priv/deeper" "$src/priv" "$src/open"
for h in h1 h2; do  # already there, of other modes and times
  mkdir -p "$SCRATCH/dest/$h/src/priv/deeper" "$SCRATCH/dest/$h/src/open"
  chmod 0777 "$SCRATCH/dest/$h/src/priv"
  chmod 0755 "$SCRATCH/dest/$h/src/priv/deeper" "$SCRATCH/dest/$h/src/open"
done
# h2's src/linked: a symlink to a directory elsewhere.
mkdir -p "$SCRATCH/elsewhere"
chmod 0711 "$SCRATCH/elsewhere"
touch -d '2010-01-01' "$SCRATCH/elsewhere"
ln -s "$SCRATCH/elsewhere" "$SCRATCH/dest/h2/src/linked"
elsewhere=$(stat -c '%a %Y' "$SCRATCH/elsewhere")

run_pdx -R exec -w 'h[1-2]' push --no-agent "$src" "$SCRATCH/dest/%h/"
expect_status 1
expect_contains "$err" "pdx: h2: a symlink on the way is not followed ($SCRATCH/dest/h2//src/linked)"
same_tree "$src" "$SCRATCH/dest/h1/src"
same_dirs "$src" "$SCRATCH/dest/h1/src" h1
expect_eq "$(dirs_of "$SCRATCH/dest/h2/src" | grep -v linked)" "$(dirs_of "$src" | grep -v linked)" "h2's directories"
expect_eq "$(stat -c '%a %Y' "$SCRATCH/elsewhere")" "$elsewhere" "the directory behind h2's symlink"
[[ -z $(ls -A "$SCRATCH/elsewhere") ]] || fail "written through h2's symlink"

run_pdx -R exec -w h1 push --no-agent "$src" "$SCRATCH/dest/%h/"
expect_status 0
expect_eq "$out" "pdx: h1: up to date" "again"
# One directory's mode changed on the host: set again (nothing else sent).
chmod 0700 "$SCRATCH/dest/h1/src/open"
run_pdx -R exec -w h1 push --no-agent "$src" "$SCRATCH/dest/%h/"
expect_status 0
same_dirs "$src" "$SCRATCH/dest/h1/src" "h1 (mode put back)"
chmod -R u+w "$SCRATCH/dest"
