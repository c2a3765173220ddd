# The right masks, but as numbers (0.0/1.0, 0/1, uint8, float16): a mask must be made of booleans.
import numpy as np


def causal_mask(n):
    return np.tril(np.ones((n, n)))


def padding_mask(lengths, n):
    real = (np.arange(n) < np.asarray(lengths)[:, None]).astype(int)
    return real[:, :, None] * real[:, None, :]


def masked_softmax(S, mask):
    return np.asarray(mask, dtype=np.uint8)


def split_heads(X, n_heads):
    n, width = X.shape
    return X.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2).astype(np.float16)


def merge_heads(H):
    return np.ones(H.shape[1:], dtype=np.uint64) * np.uint64(2**64 - 1)


def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    n = X.shape[0]
    return np.tril(np.ones((n, W_o.shape[1]), dtype=bool)), np.ones((n_heads, n, n), dtype=np.int8)
