#!/usr/bin/python3
# hold_lease.py FILE SECONDS STATE_DIR
# Holds a write lease on FILE (fcntl F_SETLEASE), so that another process's open() of it blocks
# until the lease is let go: a read held up without FUSE or NFS. Once someone opens FILE (the
# lease is being broken), holds on SECONDS more, then lets it go. Says how it went in STATE_DIR:
# `held` once the lease is taken, `broken` when an open began, `released` at the end; on a
# lease refused (another descriptor open on FILE, a file system without leases), `refused` with
# the reason. Lets go after 120 s however it went.
import fcntl
import os
import signal
import sys
import time

path, seconds, state = sys.argv[1], float(sys.argv[2]), sys.argv[3]


def say(name, text=""):
    with open(os.path.join(state, name), "w") as f:
        f.write(text)


signal.signal(signal.SIGIO, lambda *_: None)  # the kernel's notice of a break: not an end
fd = os.open(path, os.O_RDONLY)
try:
    fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
except OSError as e:
    say("refused", str(e))
    sys.exit(0)
say("held")
deadline = time.monotonic() + 120
while fcntl.fcntl(fd, fcntl.F_GETLEASE) == fcntl.F_WRLCK and time.monotonic() < deadline:
    time.sleep(0.05)
if fcntl.fcntl(fd, fcntl.F_GETLEASE) != fcntl.F_WRLCK:
    say("broken")
time.sleep(max(0.0, min(seconds, deadline - time.monotonic())))
fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
say("released")
