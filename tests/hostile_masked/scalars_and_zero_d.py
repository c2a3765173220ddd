# Returns 0-d arrays, numpy scalars and plain numbers where arrays are expected.
import numpy as np


def scaled_score(Q, K):
    return np.array(0.0)


def causal_mask(n):
    return np.bool_(True)


def padding_mask(lengths, n):
    return np.array(True)


def masked_softmax(S, mask):
    return 1.0


def split_heads(X, n_heads):
    return n_heads


def merge_heads(H):
    return np.float64(0.0)


def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    return np.array(0.0), np.array(1.0)
