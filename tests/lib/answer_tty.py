"""answer_tty.py PROMPT ANSWER TRANSCRIPT CMD...

Runs CMD in a new session whose controlling terminal (/dev/tty) is a fresh pseudo-terminal, as a
person at a terminal would: when the terminal shows PROMPT, ANSWER and a newline are typed, once.
CMD's stdin, stdout and stderr are left as given, so only what CMD writes to /dev/tty is on the
terminal; that is saved to TRANSCRIPT. Exits with CMD's status (128+N if signal N ended it); CMD
is killed after 60 s. Used by tests/lib/ssh_common.sh (run_askpass) for pdx --askpass.
"""
import fcntl
import os
import select
import signal
import sys
import termios
import time

TIMEOUT = 60


def spawn(argv, terminal):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(terminal, termios.TIOCSCTTY, 0)
        os.close(terminal)
        os.execvp(argv[0], argv)
    return pid


def read_some(master, timeout):
    """What the terminal showed within `timeout`; b"" when nothing (or nobody holds it open)."""
    if not select.select([master], [], [], timeout)[0]:
        return b""
    try:
        return os.read(master, 4096)
    except OSError:  # EIO: no process has the terminal open, before CMD opens it or after
        time.sleep(0.01)
        return b""


def main():
    prompt, answer, transcript = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3]
    master, terminal = os.openpty()
    os.set_inheritable(terminal, False)
    pid = spawn(sys.argv[4:], terminal)
    os.close(terminal)
    shown, answered, status = b"", False, None
    deadline = time.monotonic() + TIMEOUT
    while status is None:
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
        shown += read_some(master, 0.05)
        if not answered and shown.endswith(prompt):
            os.write(master, answer + b"\n")
            answered = True
        done, wait_status = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(wait_status)
    while True:  # what is still buffered
        more = read_some(master, 0)
        if not more:
            break
        shown += more
    with open(transcript, "wb") as f:
        f.write(shown)
    sys.exit(status if status >= 0 else 128 - status)


main()
