# Shared by the benchmarks that run on a loopback cluster: `-p PDX` (default: build/pdx) and
# `-c CLUSTER_DIR` (default: $BENCH_CLUSTER, else /tmp/pdx-bench-cluster); sets PDX, CLUSTER and
# OPTIND (the caller shifts what it parsed). Source it with the script's "$@".
here=$(cd "$(dirname "$0")" && pwd)
PDX=${PDX:-$here/../build/pdx}
CLUSTER=${BENCH_CLUSTER:-/tmp/pdx-bench-cluster}
while getopts p:c: opt; do
  case $opt in p) PDX=$OPTARG ;; c) CLUSTER=$OPTARG ;; *) exit 2 ;; esac
done
