#pragma once
// The one command pdx preflight runs on each host: a POSIX sh script printing what the checks
// compare as `key=value` lines (preflight/host_facts.h), each read the cheapest way: files under
// /sys and /etc, getconf, df, ulimit, nvidia-smi's --query-gpu, and one `python -c` for the
// versions of Python, torch (its version.py: CUDA; NCCL only on a CUDA build), DeepSpeed and
// Accelerate (their installed metadata, not imported). Every word taken from the user goes
// through base/quote.h. The keys:
//
//   clock         the host's time (ns since the epoch), printed first
//   os kernel glibc python torch torch.cuda torch.nccl deepspeed accelerate   ("-": absent)
//   gpus gpu.N    nvidia-smi's count and lines (name, driver, persistence, ECC errors)
//   ifvar.VAR     NCCL_SOCKET_IFNAME / GLOO_SOCKET_IFNAME as the command sees them
//   iface.N       "NAME FLAGS MTU" of each interface; ipaddr.N "NAME ADDRESS"
//   shm_kb nofile memlock rdma disk.N
//   agent.N       the SHA-256 directories of the agents cached in ~/.cache/pdx (at most 16)
//   listen        (the master) whether the port could be bound: a listener stays there,
//                 detached, until every host connected or `wait_s` passed
//   reach         whether the host connected to the master's port (python's socket)
//   ssh.N         (the first host) whether `ssh -o BatchMode=yes` reached host N
#include <string>
#include <vector>

#include "core/hostset.h"

namespace pdx {

struct ProbeOptions {
  std::string python = "python3";      // --python
  std::vector<std::string> disk_dirs;  // --need-disk's directories, in order
  std::string master;                  // the master's name as the hosts reach it
  int port = 29500;
  bool is_master = false;
  std::size_t hosts = 0;          // how many hosts connect to the master
  double wait_s = 5;              // how long a host tries to connect to the master
  double listen_s = 10;           // how long the master's listener waits for them all
  std::vector<Host> ssh_targets;  // the first host: every host, to reach over ssh
};

/// The script for one host.
std::string probe_script(const ProbeOptions& options);

/// --net: the host (`me`, as pdx names it) serves `accepts` senders at `port` of that address
/// while it sends to `next` there ("": to nobody): 20 one-byte round trips, then as many bytes as
/// go in `seconds`, with the job's Python's socket. A sender prints `net=ok RTT_MS MBIT_S` or
/// `net=fail WHY`, and `net.loopback=1` when `next` is a loopback address.
std::string net_script(const std::string& python, const std::string& me, const std::string& next,
                       std::size_t accepts, int port, double seconds);

}  // namespace pdx
