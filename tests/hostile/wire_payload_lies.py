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
    _send({"op": "returned", "payload": 16, "value": {"t": "array", "shape": [100000, 100000]}}, b"\0" * 16)
    os._exit(0)


def score(Q, K):
    _send({"op": "returned", "payload": 1 << 20, "value": {"t": "array", "shape": [2, 2]}}, b"\0" * 64)
    os._exit(0)
