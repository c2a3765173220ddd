# Replies with JSON's non-standard tokens NaN, Infinity and -Infinity in the header.
import os
import struct


def _send(text):
    head = text.encode()
    for fd in range(3, 64):
        try:
            os.write(fd, struct.pack(">I", len(head)) + head)
        except OSError:
            pass
    os._exit(0)


def softmax(S):
    _send('{"op": "results", "payload": NaN, "results": [["returned", null, [false]]]}')


def score(Q, K):
    _send('{"op": "results", "payload": 0, "results": [["returned", [Infinity], [false, false]]]}')


def aggregate(A, V):
    _send('{"op": "results", "payload": 0, "results": [["returned", [-Infinity, 2], [false, false]]]}')
