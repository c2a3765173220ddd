# Correct score(); the others leave through sys.exit, KeyboardInterrupt and a BaseException subclass.
import sys


class Escape(BaseException):
    pass


def project(X, W_q, W_k, W_v):
    sys.exit(0)


def score(Q, K):
    return Q @ K.T


def softmax(S):
    raise KeyboardInterrupt


def aggregate(A, V):
    raise Escape("bye")


def attend(X, W_q, W_k, W_v):
    raise SystemExit(3)
