# pdx preflight on 8 hosts that agree: every check passes or is n/a (no GPU here), exit 0; each
# check one line with the hosts folded; the interfaces of -E NCCL_SOCKET_IFNAME=lo and
# GLOO_SOCKET_IFNAME=lo checked, the master's port free and reached from every host, the data
# the same on every host and as the reference here.
source "$(dirname "$0")/../lib/preflight_common.sh"

mkdir -p "$SCRATCH/ref/a"
printf 1234 > "$SCRATCH/ref/a/b"
printf xy > "$SCRATCH/ref/c"
for n in $(seq 41 48); do cp -r "$SCRATCH/ref" "$(home_of "$n")/$dir/data"; done

preflight -E NCCL_SOCKET_IFNAME=lo -E GLOO_SOCKET_IFNAME==lo --python /usr/bin/python3 \
  --need-disk "$dir:1K" --data "$dir/data" --against "$SCRATCH/ref" --no-ssh-check
expect_status 0
all="127.0.0.[41-48]"
expect_contains "$out" "ok   reached: $all"
expect_contains "$out" "ok   /usr/bin/python3 $(/usr/bin/python3 -c 'import platform; print(platform.python_version())'): $all"
torch=$(/usr/bin/python3 -c 'import torch; print(torch.__version__)' 2> /dev/null) &&
  expect_contains "$out" "ok   torch $torch, CPU only: $all"
expect_contains "$out" "ok   glibc $(getconf GNU_LIBC_VERSION | sed 's/^glibc //'): $all"
expect_contains "$out" "ok   kernel $(uname -r): $all"
expect_contains "$out" "n/a  GPUs (no nvidia-smi): $all"
expect_contains "$out" "ok   NCCL_SOCKET_IFNAME lo up, mtu $(cat /sys/class/net/lo/mtu): $all"
expect_contains "$out" "ok   GLOO_SOCKET_IFNAME lo up, mtu $(cat /sys/class/net/lo/mtu): $all"
expect_contains "$out" "ok   clock within 500 ms: $all"
expect_contains "$out" "ok   disk $dir >= 1.0 KiB free: $all"
expect_contains "$out" "ok   master port $port free: 127.0.0.41"
expect_contains "$out" "ok   connect to 127.0.0.41:$port: $all"
expect_contains "$out" "ok   data $dir/data match: 2 files, 6 B: $all"
[[ $out != *FAIL* ]] || fail "a failure: $out"
[[ $out != *"ssh from"* ]] || fail "--no-ssh-check checked ssh: $out"
# Every check one line for all hosts (the master's port: for the master): none odd.
odd=$(grep -v -e ": 127.0.0.\[41-48\]$" -e "^ok   master port $port free: 127.0.0.41$" <<< "$out")
[[ -z $odd ]] || fail "lines not of every host: $odd"
[[ -z $err ]] || fail "stderr: $err"
# The listener left on the master is gone once every host connected.
for _ in $(seq 50); do ss -Htln "sport = :$port" | grep -q . || break; sleep 0.1; done
ss -Htln "sport = :$port" | grep -q . && fail "the master's listener is still there"
true
