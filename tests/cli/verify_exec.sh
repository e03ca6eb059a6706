# pdx verify under -R exec: a tree with awkward names matches itself, with and without --hash,
# through the agent (deployed into $HOME) and through the hosts' find and sha256sum
# (--no-agent), which report alike; a host's listing is untrusted (a `find` or an agent that lies
# is refused, named, the other hosts verified); usage errors.
source "$(dirname "$0")/../lib/common.sh"
export HOME=$SCRATCH/home
no_agent="pdx: warning: h[1-4]: the agent cannot run there (--no-agent); verifying with the host's find and sha256sum (slower)"

src=$SCRATCH/src
mkdir -p "$src/sub dir"
printf abc > "$src/it's \"q\""
printf 'new
line' > "$src/sub dir/new
line"
printf x > "$src/-lead"
ln -s -- "-lead" "$src/link"  # listed by its target, by the agent and by find alike

run_pdx verify -R exec -w 'h[1-4]' "$src" --against "$src" --hash
expect_status 0
expect_eq "$err" "pdx: h[1-4]: match: 3 files, 1 symlink, 12 B" "report"
[[ -x $(echo "$HOME"/.cache/pdx/*/pdx) ]] || fail "the agent was not deployed"
run_pdx verify -R exec -w 'h[1-4]' "$src" --against "$src" --hash --no-agent
expect_status 0
expect_eq "$err" "$no_agent
pdx: h[1-4]: match: 3 files, 1 symlink, 12 B" "report without the agent"
run_pdx verify -R exec -w 'h[1-4]' "$src"
expect_status 0
expect_contains "$err" "pdx: h[1-4]: 3 files, 1 symlink, 12 B, listing " "report"
listing=$err
run_pdx verify -R exec -w 'h[1-4]' "$src" --no-agent
expect_eq "$err" "$no_agent
$listing" "the same listing without the agent"

# A reference with one file more and one changed: named as such, by either way.
cp -r "$src" "$SCRATCH/ref"
printf y > "$SCRATCH/ref/-lead"
printf more > "$SCRATCH/ref/more"
printf abz > "$SCRATCH/ref/it's \"q\""  # the same size: only --hash sees it
for way in --hash "--hash --no-agent"; do
  run_pdx verify -R exec -w h1 "$src" --against "$SCRATCH/ref" $way
  expect_status 1
  expect_contains "$err" "pdx: h1: differs: 1 missing (more), 2 changed (-lead, it's \"q\")" "report ($way)"
done
run_pdx verify -R exec -w h1 "$src" --against "$SCRATCH/ref"
expect_eq "$err" "pdx: h1: differs: 1 missing (more)" "names and sizes only"

# A host whose listing holds a name with '..': refused, not counted.
mkdir -p "$SCRATCH/bin"
printf '#!/bin/sh\nprintf "s 1 ../../etc/passwd\\0"\n' > "$SCRATCH/bin/find"
chmod +x "$SCRATCH/bin/find"
PATH=$SCRATCH/bin:$PATH run_pdx verify -R exec -w h1 "$src" --against "$src" --no-agent
expect_status 1
expect_contains "$err" "pdx: h1: malformed listing from the host (unsafe name): s 1 ../../etc/passwd"

# An agent (--agent PATH) that sends garbage on h2 and a name with '..' on h3: an error for each,
# the others verified.
printf '#!/bin/sh
case $PDX_HOST in
  h2) printf "\\001garbage" ;;
  h3) %q "$@" | sed "s|-lead|../..|" ;;
  *) exec %q "$@" ;;
esac\n' "$PDX" "$PDX" > "$SCRATCH/bin/bad-agent"
chmod +x "$SCRATCH/bin/bad-agent"
run_pdx verify -R exec -w 'h[1-4]' "$src" --against "$src" --hash --agent "$SCRATCH/bin/bad-agent"
expect_status 1
expect_contains "$err" "pdx: h[1,4]: match: 3 files, 1 symlink, 12 B" "good hosts"
expect_contains "$err" "pdx: h2: malformed listing from the agent (bad frame type 1)" "garbage"
expect_contains "$err" "pdx: h3: malformed listing from the agent (unsafe name '../..'" "unsafe name"
expect_lines "$err" 3 "report"

# An agent that cannot run (not executable): that host through its find, said once.
printf 'not a program\n' > "$SCRATCH/bin/no-agent"
run_pdx verify -R exec -w 'h[1-2]' "$src" --against "$src" --hash --agent "$SCRATCH/bin/no-agent"
expect_status 0
expect_contains "$err" "pdx: warning: h[1-2]: the agent cannot run there (" "warning"
expect_contains "$err" "); verifying with the host's find and sha256sum (slower)
pdx: h[1-2]: match: 3 files, 1 symlink, 12 B" "report"

# Usage errors: exit 2, one line.
run_pdx verify -R exec -w h1
expect_usage_error
run_pdx verify -R exec -w h1 "$src" --against "$SCRATCH/none"
expect_usage_error
run_pdx verify -R exec -w h1 "$src" -m "$SCRATCH/none.manifest"
expect_usage_error
run_pdx verify -R exec -w h1 "$src" -m "$SCRATCH/x" --against "$src"
expect_usage_error
run_pdx verify -R exec -w h1 "$src" -m "$SCRATCH/x" --hash
expect_usage_error
expect_contains "$err" "a manifest holds no hashes of files"
true
