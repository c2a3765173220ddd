# masked_softmax recurses past the C stack (the interpreter's limit raised first); split_heads
# recurses to a RecursionError. causal_mask is right and keeps its points.
import sys

import numpy as np

sys.setrecursionlimit(10**8)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def _down(k):
    return _down(k + 1) + 1


def masked_softmax(S, mask):
    return _down(0)


def split_heads(X, n_heads):
    sys.setrecursionlimit(1000)
    return _down(0)
