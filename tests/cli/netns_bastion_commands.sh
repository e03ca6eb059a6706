# Every data command through a jump host, each run one login to it for all the hosts behind it:
# sync (whole, then a delta), pull, verify, and pdx as pdsh, pdcp and rpdcp with -J in
# PDSH_SSH_ARGS_APPEND. The data is checked where it landed (the hosts' accounts are this
# machine's: their homes are read directly).
source "$(dirname "$0")/../lib/bastion_common.sh"
bastion_start 4
hosts="^$dir/hosts1"
dest=pdx-test-$TEST_NAME-$$
home() { getent passwd "pdx00$1" | cut -d: -f6; }
clean_hosts() { for i in 1 2 3 4; do rm -rf "$(home "$i")/${dest:?}"*; done; }
trap 'clean_hosts; "$setup" stop "$dir"; rm -rf "$SCRATCH"' EXIT

# once NAME COMMAND...: runs COMMAND, which must log in to bastion1 exactly once.
once() {
  local what=$1 before
  shift
  before=$(logins bastion1)
  "$@"
  expect_eq "$(logins bastion1)" $((before + 1)) "$what: bastion1 logins (stderr: $err)"
}

mkdir -p "$SCRATCH/src/sub"
head -c 3000000 /dev/urandom > "$SCRATCH/src/big"
echo small > "$SCRATCH/src/sub/small"
chmod -R a+rX "$SCRATCH/src"

once sync run_jump -J bastion1 -w "$hosts" sync "$SCRATCH/src" "$dest/"
expect_status 0
expect_eq "$out" "pdx: 198.18.202.[1-4]: 2 files sent whole (2.9 MiB)" "sync"
for i in 1 2 3 4; do
  cmp "$SCRATCH/src/big" "$(home "$i")/$dest/src/big" || fail "sync: host $i's big"
  cmp "$SCRATCH/src/sub/small" "$(home "$i")/$dest/src/sub/small" || fail "sync: host $i's small"
done
printf 'EDITED' | dd of="$SCRATCH/src/big" bs=1 seek=1500000 conv=notrunc status=none
once "sync (delta)" run_jump -J bastion1 -w "$hosts" sync "$SCRATCH/src" "$dest/"
expect_status 0
[[ $out =~ ^pdx:\ [^:]+:\ 1\ file\ patched ]] || fail "sync (delta): not one folded patched line: $out"
for i in 1 2 3 4; do cmp "$SCRATCH/src/big" "$(home "$i")/$dest/src/big" || fail "delta: host $i"; done

once verify run_jump -J bastion1 -w "$hosts" verify "$dest/src" --against "$SCRATCH/src"
expect_status 0
expect_contains "$err" "pdx: 198.18.202.[1-4]: match: 2 files" "verify"
echo "another length" > "$(home 3)/$dest/src/sub/small"
once "verify (a difference)" run_jump -J bastion1 -w "$hosts" verify "$dest/src" --against "$SCRATCH/src"
expect_status 1
expect_contains "$err" "198.18.202.3" "verify names the host that differs"

once pull run_jump -J bastion1 -w "$hosts" pull "$dest/src/big" "$SCRATCH/pulled"
expect_status 0
for i in 1 2 3 4; do
  cmp "$SCRATCH/src/big" "$SCRATCH/pulled/198.18.202.$i/big" || fail "pull: host $i's copy"
done

# The pdsh names, with -J in PDSH_SSH_ARGS_APPEND (honoured, not skipped).
mkdir -p "$SCRATCH/bin"
for name in pdsh pdcp rpdcp; do ln -s "$PDX" "$SCRATCH/bin/$name"; done
export PDSH_SSH_ARGS_APPEND="-F $dir/ssh_config -J bastion1"
pdsh_name() {
  "$SCRATCH/bin/$1" "${@:2}" < /dev/null > "$SCRATCH/stdout" 2> "$SCRATCH/stderr"
  status=$?
  out=$(cat "$SCRATCH/stdout")
  err=$(cat "$SCRATCH/stderr")
}
once pdsh pdsh_name pdsh -w "$hosts" "cat $dest/src/sub/small"
expect_status 0
expect_eq "$(sort <<< "$out")" "198.18.202.1: small
198.18.202.2: small
198.18.202.3: another length
198.18.202.4: small" "pdsh through the jump host"
once pdcp pdsh_name pdcp -w "$hosts" "$SCRATCH/src/big" "$dest/copied"
expect_status 0
for i in 1 2 3 4; do cmp "$SCRATCH/src/big" "$(home "$i")/$dest/copied" || fail "pdcp: host $i"; done
mkdir "$SCRATCH/gathered"
once rpdcp pdsh_name rpdcp -w "$hosts" "$dest/copied" "$SCRATCH/gathered"
expect_status 0
for i in 1 2 3 4; do
  cmp "$SCRATCH/src/big" "$SCRATCH/gathered/copied.198.18.202.$i" || fail "rpdcp: host $i's copy"
done
true
