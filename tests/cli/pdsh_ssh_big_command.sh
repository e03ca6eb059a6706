# DeepSpeed puts `export K="V"; ` in front of its command for every line of .deepspeed_env
# (Accelerate writes its whole environment there): a 100 KB command line through the pdsh name
# over ssh reaches every host's shell whole.
source "$(dirname "$0")/../lib/ssh_common.sh"
source "$(dirname "$0")/../lib/pdsh_common.sh"

export PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS_APPEND="-F $CONFIG"
exports=()
for i in $(seq 1000); do exports+=("export VAR_$i=\"$(printf 'v%.0s' $(seq 90)) $i\"; "); done
command="${exports[*]} echo \"\$VAR_1000\" | wc -c; echo \${#VAR_500}"
(( ${#command} > 100000 )) || fail "the command is only ${#command} bytes"
run_pdsh -S -w "$(host 1),$(host 2)" "${exports[@]}" 'echo "$VAR_1000" | wc -c; echo ${#VAR_500}'
expect_status 0
expect_eq "$(sort <<< "$out")" "$(printf '%s: 96\n%s: 94\n' "$(host 1)" "$(host 1)" "$(host 2)" "$(host 2)" | sort)"
true
