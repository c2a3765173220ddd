# Arrays of dtypes the wire does not carry: object, complex, datetime, structured, bytes, big-endian.
import numpy as np


def scaled_score(Q, K):
    return (Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])).astype(complex)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool)).astype(object)


def padding_mask(lengths, n):
    return np.zeros((len(lengths), n, n), dtype=[("keep", bool), ("why", "U4")])


def masked_softmax(S, mask):
    return np.zeros(S.shape, dtype="datetime64[ns]")


def split_heads(X, n_heads):
    return np.zeros((n_heads, X.shape[0], X.shape[1] // n_heads), dtype="S8")


def merge_heads(H):
    return np.zeros((H.shape[1], H.shape[0] * H.shape[2]), dtype=">f8")


def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    n = X.shape[0]
    return np.zeros((n, W_o.shape[1]), dtype=np.longdouble), np.zeros((n_heads, n, n), dtype="m8[s]")
