# Replies with well-formed JSON of the wrong types in every field the grader reads, one per function.
import json
import os
import struct

FORGED = {
    "project": {"op": "results", "payload": 0, "results": [["returned", ["t", None], 7]]},
    "score": {"op": ["results"], "payload": 0},
    "softmax": {"op": "results", "payload": True, "results": [["returned", None, []]]},
    "aggregate": {"op": "results", "payload": 0, "results": [["returned", [True, 2], [[]]]]},
    "attend": {"op": "results", "payload": 0, "results": [{"op": "raised", "type": {"x": [1, 2]}, "where": 3.5}]},
}


def _forge(name):
    head = json.dumps(FORGED[name]).encode()
    for fd in range(3, 64):
        try:
            os.write(fd, struct.pack(">I", len(head)) + head)
        except OSError:
            pass
    os._exit(0)


def project(X, W_q, W_k, W_v):
    _forge("project")


def score(Q, K):
    _forge("score")


def softmax(S):
    _forge("softmax")


def aggregate(A, V):
    _forge("aggregate")


def attend(X, W_q, W_k, W_v):
    _forge("attend")
