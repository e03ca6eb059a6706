# %u without -l and with $USER unset (cron, systemd units, containers): the name of this uid's
# passwd entry, as pdsh and ssh take it, in pdx and in pdx as pdsh.
source "$(dirname "$0")/../lib/pdsh_common.sh"

me=$(id -un)
out=$(env -u USER "$PDX" -R exec -w n1 echo 'user=%u' 2>&1)
expect_eq "$out" "n1: user=$me" "pdx -R exec with USER unset"

out=$(env -u USER "$PDSH" -R exec -w n1 echo 'user=%u' 2>&1)
expect_eq "$out" "n1: user=$me" "pdsh -R exec with USER unset"

out=$(env USER= "$PDX" -R exec -w n1 echo 'user=%u' 2>&1)
expect_eq "$out" "n1: user=$me" "pdx -R exec with USER empty"
