# Correct project, score and aggregate; softmax dies of a segmentation fault on its third call,
# attend leaves through os._exit: the child ends mid-batch, and only those two parts may pay.
import ctypes
import os

import numpy as np

_softmax_calls = 0


def project(X, W_q, W_k, W_v):
    return X @ W_q, X @ W_k, X @ W_v


def score(Q, K):
    return Q @ K.T


def softmax(S):
    global _softmax_calls
    _softmax_calls += 1
    if _softmax_calls == 3:
        ctypes.string_at(0)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def aggregate(A, V):
    return A @ V


def attend(X, W_q, W_k, W_v):
    os._exit(3)
