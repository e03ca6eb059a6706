# A host option before a subcommand that runs here (`pdx -F cfg pack ...`): with no hosts it is
# no remote command either, so it is a usage error that says so (exit 2), and nothing runs.
# With hosts the word is a remote command, as with pdsh: `pdx -w h split ...` runs split there.
source "$(dirname "$0")/../lib/common.sh"
unset PDX_HOSTS WCOLL
mkdir "$SCRATCH/src"
printf 'x\n' > "$SCRATCH/src/f"
: > "$SCRATCH/ssh_config"

run_pdx -F "$SCRATCH/ssh_config" pack "$SCRATCH/src" -o "$SCRATCH/out.tar"
expect_usage_error
expect_eq "$err" "pdx: error: no hosts to run 'pack' on; for pdx's own pack, give no host options: pdx pack ..."
[[ ! -e $SCRATCH/out.tar ]] || fail "pack ran"
for sub in unpack join split hosts; do
  run_pdx -l someone "$sub" x
  expect_usage_error
  expect_contains "$err" "for pdx's own $sub, give no host options"
done

# Another command without hosts: the usual error.
run_pdx -F "$SCRATCH/ssh_config" echo hi
expect_usage_error
expect_contains "$err" "no hosts: use -w"

# With hosts, a remote command of that name.
run_pdx -R exec -w h1 split --version
expect_status 0
expect_contains "$out" "h1: split (GNU coreutils)"
