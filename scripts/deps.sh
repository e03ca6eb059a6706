#!/bin/bash
# Installs what pdx needs to build, test and benchmark, from Debian's packages only.
# Run as root (or with sudo available). Safe to run again: apt-get skips what is installed.
set -euo pipefail

PACKAGES=(
  # build
  build-essential cmake ninja-build pkg-config
  libssh2-1-dev libssl-dev libboost-dev libcli11-dev libzstd-dev liblzma-dev libbz2-dev zlib1g-dev
  libarchive-dev libgtest-dev libxxhash-dev libgenders0-dev
  # build: the .a files of libarchive's own dependencies (pdx links libarchive.a,
  # cmake/StaticLibarchive.cmake), and of libssh2's for the static pdx (-DPDX_STATIC=ON)
  nettle-dev libacl1-dev liblz4-dev libgpg-error-dev
  # tests: a real sshd, real archivers for interop, man page lint
  openssh-server openssh-client tar gzip bzip2 xz-utils zstd zip unzip coreutils groff man-db
  procps time iproute2 python3 util-linux
  # tests: a packet capture of the data links (no plaintext on the wire)
  tcpdump
  # tests: a real torchrun launch (Debian's torch, CPU, gloo), the .deb on a clean Debian root
  python3-torch debootstrap
  # benchmarks: the tools pdx is measured against
  pdsh clustershell pssh pigz rsync hyperfine bc
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
