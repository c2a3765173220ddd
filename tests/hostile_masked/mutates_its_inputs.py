# Right values, computed first; then the inputs are changed in place: the mask made all True, the
# lengths zeroed, a boolean mask's bytes set to 7, X overwritten. Only the unchanged checks may fail.
import numpy as np


def padding_mask(lengths, n):
    real = np.arange(n) < np.asarray(lengths)[:, None]
    out = real[:, :, None] & real[:, None, :]
    lengths[:] = 0
    return out


def masked_softmax(S, mask):
    kept = np.where(mask, S, -np.inf)
    top = kept.max(axis=-1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    e = np.exp(kept - top)
    total = e.sum(axis=-1, keepdims=True)
    out = e / np.where(total > 0, total, 1.0)
    mask.view(np.uint8)[...] = 7
    S[...] = np.nan
    return out


def split_heads(X, n_heads):
    n, width = X.shape
    out = X.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2).copy()
    X[...] = 0.0
    return out


def merge_heads(H):
    n_heads, n, d_head = H.shape
    out = H.transpose(1, 0, 2).reshape(n, n_heads * d_head)
    H.shape = (n_heads * n * d_head,)
    return out
