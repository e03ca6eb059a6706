# pdx preflight names the odd host out and exits 1: a Python that says another version on one
# host (--python: a wrapper in each home), fewer GPUs than the hostfile's slots= and another
# driver, uncorrected ECC errors, persistence mode off (a stub nvidia-smi first in PATH), an
# interface missing everywhere (bond1), the master's
# port taken, not enough disk, and a file of the data missing on one host.
source "$(dirname "$0")/../lib/preflight_common.sh"

for n in $(seq 41 48); do
  h=$(home_of "$n")/$dir
  mkdir -p "$h/bin" "$h/data"
  printf 'x' > "$h/data/f"
  printf '#!/bin/sh\nexec /usr/bin/python3 "$@"\n' > "$h/bin/python"
  gpus=2 driver=535.104 persistence=Enabled ecc=0
  [[ $n == 42 ]] && gpus=1
  [[ $n == 43 ]] && driver=550.54
  [[ $n == 46 ]] && ecc=3
  [[ $n == 47 ]] && persistence=Disabled
  {
    echo '#!/bin/sh'
    echo "echo 'NVIDIA H100 80GB HBM3, $driver, Enabled, 0'"
    [[ $gpus == 2 ]] && echo "echo 'NVIDIA H100 80GB HBM3, $driver, $persistence, $ecc'"
  } > "$h/bin/nvidia-smi"
  echo "$(host "$n") slots=2" >> "$SCRATCH/hostfile"
done
printf '#!/bin/sh\n/usr/bin/python3 "$@" | sed "s/^python=.*/python=3.9.99/"\n' \
  > "$(home_of 44)/$dir/bin/python"
rm "$(home_of 45)/$dir/data/f"
for n in $(seq 41 48); do chmod -R a+rX "$(home_of "$n")/$dir"; chmod 755 "$(home_of "$n")/$dir/bin/"*; done
hosts="^$SCRATCH/hostfile"

preflight --python "$dir/bin/python" -E "PATH=$dir/bin:/usr/bin:/bin" --no-ssh-check
expect_status 1
expect_contains "$out" "FAIL $dir/bin/python 3.9.99: 127.0.0.44 (127.0.0.[41-43,45-48]: "
expect_contains "$out" "ok   GPUs 2 x NVIDIA H100 80GB HBM3, slots=2: 127.0.0.[41,43-45,48]"
expect_contains "$out" "FAIL GPUs 2 x NVIDIA H100 80GB HBM3, 3 ECC errors: 127.0.0.46"
expect_contains "$out" "FAIL GPUs 1 x NVIDIA H100 80GB HBM3, slots=2: 127.0.0.42"
expect_contains "$out" "FAIL GPUs 2 x NVIDIA H100 80GB HBM3, persistence mode off, slots=2: 127.0.0.47 ("
expect_contains "$out" "FAIL NVIDIA driver 550.54: 127.0.0.43 (127.0.0.[41-42,44-48]: 535.104)"
[[ $out != *"FAIL reached"* ]] || fail "a host not reached: $out"

# Without nvidia-smi, slots= asked for: a failure, not n/a.
preflight -E "PATH=/usr/bin:/bin" --no-ssh-check
expect_status 1
expect_contains "$out" "FAIL GPUs none (no nvidia-smi), slots=2: 127.0.0.[41-48]"

hosts=$(IFS=,; echo "${PF_HOSTS[*]}")
preflight -E NCCL_SOCKET_IFNAME=bond1 --need-disk "$dir:1P" --data "$dir/data" --no-ssh-check
expect_status 1
expect_contains "$out" "FAIL NCCL_SOCKET_IFNAME bond1 missing: 127.0.0.[41-48]"
expect_contains "$out" "FAIL disk $dir free < 1.0 PiB: 127.0.0.[41-48] ("
expect_contains "$out" "FAIL data $dir/data "
expect_contains "$out" ": 127.0.0.45"
expect_contains "$out" "ok   data $dir/data 1 file, 1 B"

hold_port
at_exit release_port
port=$held_port
preflight --no-ssh-check
expect_status 1
expect_contains "$out" "FAIL master port $port taken: 127.0.0.41 (Address already in use)"
expect_contains "$out" "n/a  connect to 127.0.0.41:$port (no listener there): 127.0.0.[41-48]"
true
