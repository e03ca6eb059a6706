# A line longer than 4 MiB is cut into pieces of exactly 4 MiB (4194304 bytes), each printed as
# a line of its own, the rest last.
source "$(dirname "$0")/../lib/common.sh"

"$PDX" -R exec -w h1 -N 'head -c 10485760 /dev/zero | tr "\0" x' </dev/null >"$SCRATCH/out"
expect_eq "$(awk '{ print length($0) }' "$SCRATCH/out" | tr '\n' ' ')" "4194304 4194304 2097152 " \
  "piece lengths (-N)"
"$PDX" -R exec -w h1 'head -c 10485760 /dev/zero | tr "\0" x' </dev/null >"$SCRATCH/out"
expect_eq "$(awk '{ print length($0) }' "$SCRATCH/out" | tr '\n' ' ')" "4194308 4194308 2097156 " \
  "piece lengths, each after 'h1: '"
