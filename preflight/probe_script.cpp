#include "preflight/probe_script.h"

#include <cstdio>

#include "base/quote.h"

namespace pdx {

namespace {

// Python's facts, in one interpreter: versions from metadata and torch's version.py, so that torch
// is imported only for NCCL's version, on a CUDA build.
constexpr const char* kPythonFacts = R"(import sys, platform, os
print("python=" + platform.python_version())
try:
    from importlib import metadata as md
except Exception:
    md = None
def ver(name):
    try:
        return md.version(name)
    except Exception:
        return ""
for name in ("deepspeed", "accelerate"):
    print(name + "=" + (ver(name) or "-"))
import importlib.util
spec = importlib.util.find_spec("torch")
if spec is None or not spec.origin:
    print("torch=-")
else:
    d = {}
    try:
        exec(open(os.path.join(os.path.dirname(spec.origin), "version.py")).read(), d)
    except Exception:
        pass
    print("torch=" + str(d.get("__version__") or ver("torch") or "?"))
    cuda = d.get("cuda")
    print("torch.cuda=" + (str(cuda) if cuda else "-"))
    if cuda:
        try:
            import torch
            v = torch.cuda.nccl.version()
            print("torch.nccl=" + (".".join(map(str, v)) if isinstance(v, tuple) else str(v)))
        except Exception:
            print("torch.nccl=?")
)";

// The master's listener: binds the port (every address), says so, then detaches and accepts
// until `count` connections came or `seconds` passed.
constexpr const char* kListener = R"(import socket, sys, os, time
port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
try:
    s = socket.socket(socket.AF_INET6)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
except OSError:
    s = socket.socket(socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("", port))
    s.listen(128)
except OSError as e:
    print("listen=fail " + (e.strerror or str(e)))
    sys.exit(0)
print("listen=ok", flush=True)
if os.fork():
    os._exit(0)
os.setsid()
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
s.settimeout(0.2)
end, done = time.time() + seconds, 0
while done < count and time.time() < end:
    try:
        c, _ = s.accept()
        c.close()
        done += 1
    except OSError:
        pass
)";

// A host's connection to the master's port, tried again until `seconds` passed (the listener
// may not be up yet).
constexpr const char* kConnect = R"(import socket, sys, time
host, port, end = sys.argv[1], int(sys.argv[2]), time.time() + float(sys.argv[3])
why = "timed out"
while time.time() < end:
    t = time.time()
    try:
        c = socket.create_connection((host, port), timeout=max(0.2, end - t))
        print("reach=ok %.1f" % ((time.time() - t) * 1000))
        c.close()
        sys.exit(0)
    except OSError as e:
        why = e.strerror or str(e)
        time.sleep(0.1)
print("reach=fail " + why)
)";

// --net: one host of a round (net_script): it serves `accepts` senders and sends to `nxt`
// ("-": to nobody).
constexpr const char* kNet = R"(import socket, sys, time, threading, ipaddress
me, nxt, port, secs, accepts = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
def serve_one(c):
    c.settimeout(secs + 15)
    try:
        while True:
            b = c.recv(1)
            if not b or b == b"D":
                break
            c.sendall(b)
        while c.recv(1 << 20):
            pass
    except OSError:
        pass
def serve(srv):
    srv.settimeout(secs + 15)
    served = []
    try:
        for _ in range(accepts):
            c, _ = srv.accept()
            t = threading.Thread(target=serve_one, args=(c,), daemon=True)
            t.start()
            served.append(t)
    except OSError:
        pass
    for t in served:
        t.join(secs + 15)
server = None
if accepts > 0:
    srv = socket.socket(socket.AF_INET6 if ":" in me else socket.AF_INET)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        srv.bind((me, port))
        srv.listen(max(accepts, 4))
    except OSError as e:
        print("net=fail cannot listen: " + (e.strerror or str(e)))
        sys.exit(0)
    server = threading.Thread(target=serve, args=(srv,), daemon=True)
    server.start()
def send():
    end = time.time() + 10
    while True:
        try:
            s = socket.create_connection((nxt, port), timeout=5)
            break
        except OSError as e:
            if time.time() > end:
                print("net=fail " + (e.strerror or str(e)))
                return
            time.sleep(0.1)
    try:
        if ipaddress.ip_address(s.getpeername()[0].split("%")[0]).is_loopback:
            print("net.loopback=1")
    except ValueError:
        pass
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rtt = []
    try:
        for _ in range(20):
            t = time.perf_counter()
            s.sendall(b"p")
            s.recv(1)
            rtt.append(time.perf_counter() - t)
        s.sendall(b"D")
        buf, sent = bytes(1 << 20), 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < secs:
            sent += s.send(buf)
        took = time.perf_counter() - t0
        s.shutdown(socket.SHUT_WR)
        print("net=ok %.3f %.1f" % (min(rtt) * 1000, sent * 8 / took / 1e6), flush=True)
    except OSError as e:
        print("net=fail " + (e.strerror or str(e)))
if nxt != "-":
    send()
if server:
    server.join(2 * secs + 30)
)";

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", s);
  return text;
}

std::string ssh_part(const std::vector<Host>& targets) {
  std::string s = "if command -v ssh >/dev/null 2>&1; then\n";
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const Host& h = targets[i];
    std::string args = "-o BatchMode=yes -o ConnectTimeout=5";
    if (h.port) args += " -p " + std::to_string(h.port);
    if (!h.user.empty()) args += " -l " + shell_quote(h.user);
    std::string key = "ssh." + std::to_string(i);
    s += "  ( r=$(ssh " + args + " " + shell_quote(h.name) + " true 2>&1 </dev/null) && echo " +
         key + "=ok || echo \"" + key + "=fail $(printf '%s\\n' \"$r\" | tail -n 1)\" ) &\n";
  }
  s += "  wait\nelse\n  echo ssh=-\nfi\n";
  return s;
}

}  // namespace

std::string probe_script(const ProbeOptions& o) {
  const std::string py = shell_quote(o.python);
  std::string s = "echo clock=$(date +%s%N)\n";
  s += "exec 2>/dev/null\n";
  if (o.is_master)  // first, so that the other hosts find it listening
    s += "if command -v " + py + " >/dev/null; then " + py + " -c " + shell_quote(kListener) + " " +
         std::to_string(o.port) + " " + std::to_string(o.hosts) + " " + seconds(o.listen_s) +
         "; else echo listen=-; fi\n";
  s += "( . /etc/os-release && echo \"os=$PRETTY_NAME\" )\n"
       "echo kernel=$(uname -r)\n"
       "echo glibc=$(getconf GNU_LIBC_VERSION | sed 's/^glibc //')\n";
  s += "if command -v " + py + " >/dev/null; then " + py + " -c " + shell_quote(kPythonFacts) +
       "; else echo python=-; fi\n";
  s += "if command -v nvidia-smi >/dev/null; then\n"
       "  nvidia-smi --query-gpu=name,driver_version,persistence_mode,"
       "ecc.errors.uncorrected.volatile.total --format=csv,noheader 2>&1 | head -n 64 |\n"
       "  { i=0; while IFS= read -r l; do echo \"gpu.$i=$l\"; i=$((i+1)); done; echo gpus=$i; }\n"
       "else echo gpus=-; fi\n";
  s +=
      "[ -n \"${NCCL_SOCKET_IFNAME-}\" ] && echo \"ifvar.NCCL_SOCKET_IFNAME=$NCCL_SOCKET_IFNAME\"\n"
      "[ -n \"${GLOO_SOCKET_IFNAME-}\" ] && echo \"ifvar.GLOO_SOCKET_IFNAME=$GLOO_SOCKET_IFNAME\"\n"
      "i=0; for d in /sys/class/net/*; do [ $i -lt 64 ] || break; n=${d##*/}; "
      "echo \"iface.$i=$n $(cat \"$d/flags\") $(cat \"$d/mtu\")\"; i=$((i+1)); done\n"
      "ip -o addr show | head -n 256 | awk '{ print \"ipaddr.\" NR-1 \"=\" $2 \" \" $4 }'\n";
  s += "df -Pk /dev/shm | awk 'NR == 2 { print \"shm_kb=\" $2 }'\n"
       "echo nofile=$(ulimit -n)\n"
       "echo memlock=$(ulimit -l)\n"
       "echo rdma=$(ls /sys/class/infiniband | wc -l)\n";
  s += "i=0; for f in \"$HOME\"/.cache/pdx/*/pdx; do [ -f \"$f\" ] && [ $i -lt 16 ] || continue; "
       "d=${f%/pdx}; echo \"agent.$i=${d##*/}\"; i=$((i+1)); done\n";
  for (std::size_t i = 0; i < o.disk_dirs.size(); ++i)
    s += "df -Pk " + shell_quote(o.disk_dirs[i]) + " | awk 'NR == 2 { print \"disk." +
         std::to_string(i) + "=\" $4 }'\n";
  if (!o.ssh_targets.empty()) s += ssh_part(o.ssh_targets);
  if (!o.master.empty())
    s += "if command -v " + py + " >/dev/null; then " + py + " -c " + shell_quote(kConnect) + " " +
         shell_quote(o.master) + " " + std::to_string(o.port) + " " + seconds(o.wait_s) +
         "; else echo reach=-; fi\n";
  s += "exit 0\n";
  return s;
}

std::string net_script(const std::string& python, const std::string& me, const std::string& next,
                       std::size_t accepts, int port, double secs) {
  const std::string py = shell_quote(python);
  return "exec 2>/dev/null\nif command -v " + py + " >/dev/null; then " + py + " -c " +
         shell_quote(kNet) + " " + shell_quote(me) + " " + shell_quote(next.empty() ? "-" : next) +
         " " + std::to_string(port) + " " + seconds(secs) + " " + std::to_string(accepts) +
         "; else echo net=-; fi\nexit 0\n";
}

}  // namespace pdx
