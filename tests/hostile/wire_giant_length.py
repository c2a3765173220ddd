# Replies with a length prefix of 4 GiB, then a second frame claiming a huge payload, then hangs.
import os
import struct
import time


def score(Q, K):
    for fd in range(3, 64):
        try:
            os.write(fd, struct.pack(">I", 0xFFFFFFFF) + b"{")
        except OSError:
            pass
    time.sleep(30)


def softmax(S):
    head = b'{"op": "returned", "payload": 67108864, "value": {"t": "array", "shape": [8192, 1024]}}'
    for fd in range(3, 64):
        try:
            os.write(fd, struct.pack(">I", len(head)) + head + b"\0" * 4096)
        except OSError:
            pass
    time.sleep(30)
