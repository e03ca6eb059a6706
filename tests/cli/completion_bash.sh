# scripts/pdx.bash-completion: subcommands, options from `pdx [SUB] --help`, hosts for -w from
# ssh's known_hosts and from a ^FILE on the line, file names after ^.
source "$(dirname "$0")/../lib/common.sh"

mkdir -p "$SCRATCH/home/.ssh" "$SCRATCH/bin"
printf '%s\n' 'gpu01,10.0.0.1 ssh-ed25519 AAAA' '[gpu02]:2222 ssh-ed25519 AAAA' \
  '|1|hashed= ssh-ed25519 AAAA' '# comment' > "$SCRATCH/home/.ssh/known_hosts"
printf '%s\n' 'node1 slots=8' '# comment' 'node2' > "$SCRATCH/hostfile"
ln -s "$PDX" "$SCRATCH/bin/pdx"

# complete WORD...: what _pdx offers for the last word of `pdx WORD...`.
complete_words() {
  HOME=$SCRATCH/home PATH=$SCRATCH/bin:$PATH bash -c '
    source "$0"
    COMP_WORDS=(pdx "$@"); COMP_CWORD=$#
    _pdx
    printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd" "' "$PDX_SRC/scripts/pdx.bash-completion" "$@"
}

expect_eq "$(complete_words p)" "pack pull push" "subcommands"
expect_eq "$(complete_words ve)" "verify" "subcommand"
expect_eq "$(complete_words -w gpu)" "gpu01 gpu02" "known hosts"
expect_eq "$(complete_words -w "^$SCRATCH/hostf")" "^$SCRATCH/hostfile" "^FILE"
expect_eq "$(complete_words -w "^$SCRATCH/hostfile" -x node)" "node1 node2" "hosts of ^FILE"
expect_eq "$(complete_words -R e)" "exec" "-R"
expect_contains "$(complete_words --js)" "--json" "run option"
expect_contains "$(complete_words pack --spl)" "--split" "pack option"
[[ $(complete_words --spl) == *--split* ]] && fail "pack's option offered outside pack"
true
