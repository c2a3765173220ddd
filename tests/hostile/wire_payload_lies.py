# Replies whose header promises more array than the payload holds, and payloads that end early.
import json
import os
import struct


def _send(header, payload=b""):
    head = json.dumps(header).encode()
    for fd in range(3, 64):
        try:
            os.write(fd, struct.pack(">I", len(head)) + head + payload)
        except OSError:
            pass


def softmax(S):
    _send({"op": "results", "payload": 16, "results": [["returned", [100000, 100000], [False]]]}, b"\0" * 16)
    os._exit(0)


def score(Q, K):
    _send({"op": "results", "payload": 1 << 20, "results": [["returned", [2, 2], [False, False]]]}, b"\0" * 64)
    os._exit(0)
