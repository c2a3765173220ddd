# Returns a list nested 10,000 deep, 100,000 items, dicts of arrays, ragged lists of booleans.
import numpy as np


def _deep(k):
    value = [True]
    for _ in range(k):
        value = [value]
    return value


def scaled_score(Q, K):
    return _deep(10_000)


def causal_mask(n):
    return [[j <= i for j in range(i + 1)] for i in range(n)]


def padding_mask(lengths, n):
    return [[[True] * n] * n] * 100_000


def masked_softmax(S, mask):
    return {i: np.zeros(3) for i in range(5000)}


def split_heads(X, n_heads):
    return tuple(np.zeros(1) for _ in range(20_000))


def merge_heads(H):
    return [[[[[[[[[[1.0]]]]]]]]]]


def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    return (_deep(50), {"A": _deep(9)})
