# Returns arrays of 10^9 and more elements that take no memory (broadcasts, zero strides).
import numpy as np
from numpy.lib.stride_tricks import as_strided


def scaled_score(Q, K):
    return np.broadcast_to(np.float64(1.0), (10**9,))


def causal_mask(n):
    return np.broadcast_to(True, (10**5, 10**5))


def padding_mask(lengths, n):
    return as_strided(np.ones(1, dtype=bool), shape=(2**20, 2**20, 4), strides=(0, 0, 0))


def masked_softmax(S, mask):
    return as_strided(np.zeros(1), shape=(2**15,) * 4, strides=(0,) * 4)


def split_heads(X, n_heads):
    return np.broadcast_to(X, (10**6,) + X.shape)


def merge_heads(H):
    return np.broadcast_to(np.zeros(1), (2**61,))


def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    return tuple(np.broadcast_to(np.zeros(1), (2**20,)) for _ in range(200))
