"""Correct solutions written differently from the reference: the suites must not care how.

Each uses the sizes and masks as they arrive (ints as ints, masks as booleans), with no conversion:
np.ones((n, n), dtype=bool), range(n_heads), S[~mask] = -np.inf on a copy, np.where(mask, S, -np.inf).
"""

VARIANTS = {
    "loops": {
        "scaled_score": """
def scaled_score(Q, K):
    import math
    S = np.zeros(Q.shape[:-1] + (K.shape[-2],))
    for idx in np.ndindex(Q.shape[:-2]):
        for i in range(Q.shape[-2]):
            for j in range(K.shape[-2]):
                S[idx + (i, j)] = sum(Q[idx + (i, c)] * K[idx + (j, c)] for c in range(Q.shape[-1]))
    return S / math.sqrt(Q.shape[-1])
""",
        "causal_mask": """
def causal_mask(n):
    mask = np.ones((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1, n):
            mask[i, j] = False
    return mask
""",
        "padding_mask": """
def padding_mask(lengths, n):
    mask = np.zeros((len(lengths), n, n), dtype=bool)
    for b, length in enumerate(lengths):
        mask[b, :length, :length] = True
    return mask
""",
        "masked_softmax": """
def masked_softmax(S, mask):
    S = S.copy()
    S[~mask] = -np.inf
    W = np.zeros(S.shape)
    for idx in np.ndindex(S.shape[:-1]):
        if mask[idx].any():
            e = np.exp(S[idx] - S[idx].max())
            W[idx] = e / e.sum()
    return W
""",
        "split_heads": """
def split_heads(X, n_heads):
    d_head = X.shape[1] // n_heads
    return np.stack([X[:, h * d_head:(h + 1) * d_head] for h in range(n_heads)])
""",
        "merge_heads": """
def merge_heads(H):
    return np.hstack(H)
""",
        "multi_head_attend": """
def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    n = X.shape[0]
    if mask is None:
        mask = np.ones((n, n), dtype=bool)
    Q, K, V = (split_heads(X @ W, n_heads) for W in (W_q, W_k, W_v))
    outputs, weights = [], []
    for h in range(n_heads):
        A = masked_softmax(scaled_score(Q[h], K[h]), mask)
        outputs.append(A @ V[h])
        weights.append(A)
    return merge_heads(np.array(outputs)) @ W_o, np.array(weights)
""",
    },
    "where": {
        "scaled_score": """
def scaled_score(Q, K):
    return np.einsum("...qd,...kd->...qk", Q, K) / np.sqrt(K.shape[-1])
""",
        "causal_mask": """
def causal_mask(n):
    return np.arange(n)[:, None] >= np.arange(n)[None, :]
""",
        "padding_mask": """
def padding_mask(lengths, n):
    real = np.arange(n)[None, :] < lengths[:, None]
    return real[:, :, None] * real[:, None, :]
""",
        "masked_softmax": """
def masked_softmax(S, mask):
    kept = np.where(mask, S, -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(kept - kept.max(axis=-1, keepdims=True))
        W = e / e.sum(axis=-1, keepdims=True)
    return np.nan_to_num(W, nan=0.0)
""",
        "split_heads": """
def split_heads(X, n_heads):
    return np.array(np.split(X, n_heads, axis=1))
""",
        "merge_heads": """
def merge_heads(H):
    return np.concatenate(list(H), axis=1)
""",
        "multi_head_attend": """
def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    Q = split_heads(X @ W_q, n_heads)
    K = split_heads(X @ W_k, n_heads)
    V = split_heads(X @ W_v, n_heads)
    S = scaled_score(Q, K)
    A = masked_softmax(S, True if mask is None else mask[None, :, :])
    return merge_heads(np.einsum("hqk,hkd->hqd", A, V)) @ W_o, A
""",
    },
    "triu_and_copies": {
        "causal_mask": """
def causal_mask(n):
    return ~np.triu(np.ones((n, n), dtype=bool), k=1)
""",
        "padding_mask": """
def padding_mask(lengths, n):
    return np.array([np.outer(np.arange(n) < L, np.arange(n) < L) for L in lengths])
""",
        "masked_softmax": """
def masked_softmax(S, mask):
    W = S.copy()
    W[~mask] = -np.inf
    top = np.max(W, axis=-1, keepdims=True, initial=-np.inf)
    np.subtract(W, top, out=W, where=np.isfinite(top))
    np.exp(W, out=W)
    total = W.sum(axis=-1, keepdims=True)
    np.divide(W, total, out=W, where=total > 0)
    return W
""",
        "split_heads": """
def split_heads(X, n_heads):
    n = len(X)
    return np.swapaxes(X.reshape(n, n_heads, -1), 0, 1)
""",
        "merge_heads": """
def merge_heads(H):
    return np.swapaxes(H, 0, 1).reshape(H.shape[1], -1)
""",
    },
}
