# Returns huge ints, nan, dicts, long strings, sets, generators and tuples of the wrong length.
import numpy as np


def scaled_score(Q, K):
    return 10**100


def causal_mask(n):
    return {"mask": np.tril(np.ones((n, n), dtype=bool))}


def padding_mask(lengths, n):
    return "True " * 20000


def masked_softmax(S, mask):
    return float("nan")


def split_heads(X, n_heads):
    return {1, 2, 3}


def merge_heads(H):
    return (row for row in H)


def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    return -(2**64), float("inf"), None
