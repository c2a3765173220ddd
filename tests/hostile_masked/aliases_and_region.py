# split_heads returns a view of its input, merge_heads its input itself reshaped (both legal);
# masked_softmax hands back one buffer again and again; scaled_score returns every byte of its
# inputs' buffer; causal_mask reads the other calls' inputs ahead and overwrites them.
import numpy as np

_buffer = np.zeros(0)


def scaled_score(Q, K):
    base = Q
    while isinstance(base.base, np.ndarray):
        base = base.base
    return np.frombuffer(Q.base if Q.base is not None else Q, dtype=np.float64)


def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def split_heads(X, n_heads):
    n, width = X.shape
    return X.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)


def masked_softmax(S, mask):
    global _buffer
    if _buffer.shape != S.shape:
        _buffer = np.zeros(S.shape)
    _buffer[...] = np.where(mask, 1.0, 0.0)
    return _buffer
