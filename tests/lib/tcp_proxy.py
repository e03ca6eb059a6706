#!/usr/bin/python3
# tcp_proxy.py PORT_FILE TARGET_ADDRESS TARGET_PORT [--flip OFFSET] [--flip-back OFFSET]
#              [--capture FILE] [--delay-back SECONDS]
# A TCP proxy on 127.0.0.1 (its port written to PORT_FILE) forwarding every connection to
# TARGET: what a test puts between pdx and an agent (PDX_TEST_DIRECT_VIA). --capture: every byte
# both ways appended to FILE (a packet capture where tcpdump is not installed); --flip: the byte at
# OFFSET of the client's bytes (on the first connection) changed; --flip-back: the byte at OFFSET
# of the target's bytes (a pull's agent sends, pdx receives); --delay-back: each read of the
# target's bytes passed on that much later (a slow data path: the target's last word on the link
# comes after its command's end has come over ssh).
import argparse
import socket
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("port_file")
parser.add_argument("address")
parser.add_argument("port", type=int)
parser.add_argument("--flip", type=int, default=-1)
parser.add_argument("--flip-back", type=int, default=-1)
parser.add_argument("--capture")
parser.add_argument("--delay-back", type=float, default=0)
args = parser.parse_args()
lock = threading.Lock()
first = [True]


def pump(src, dst, flip, delay=0):
    seen = 0
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if 0 <= flip - seen < len(data):
                i = flip - seen
                data = data[:i] + bytes([data[i] ^ 0x5A]) + data[i + 1:]
            seen += len(data)
            time.sleep(delay)
            if args.capture:
                with lock, open(args.capture, "ab") as f:
                    f.write(data)
            dst.sendall(data)
    except OSError:
        for s in (src, dst):  # broken: both ways
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return
    try:
        dst.shutdown(socket.SHUT_WR)  # the end, passed on: the other way goes on
    except OSError:
        pass


listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(args.port_file + ".tmp", "w") as f:
    f.write(str(listener.getsockname()[1]))
import os
os.rename(args.port_file + ".tmp", args.port_file)
while True:
    client, _ = listener.accept()
    try:
        server = socket.create_connection((args.address, args.port))
    except OSError:
        client.close()
        continue
    flip = args.flip if first[0] else -1
    flip_back = args.flip_back if first[0] else -1
    first[0] = False
    threading.Thread(target=pump, args=(client, server, flip), daemon=True).start()
    threading.Thread(target=pump, args=(server, client, flip_back, args.delay_back),
                     daemon=True).start()
