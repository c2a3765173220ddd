"""Scaled, masked, multi-head attention: what every transformer adds to one head of attention.

Three additions to the first assignment's attention. Scores are divided by sqrt(d_k): a dot product
of d_k components grows in spread like sqrt(d_k), and scores that spread out push softmax to put
all its weight on one key. A mask says which keys each query may see: a causal model's token sees
only itself and the tokens before it, and in a batch of sentences padded to one length nobody
attends to (or from) the padding. And several heads attend side by side, each on its own slice of
the projections, so that one head can look for the numbers while another looks for the operator;
their outputs are concatenated and mixed by an output projection W_o (Vaswani et al., "Attention
Is All You Need", 2017, sections 3.2.1-3.2.3).

Masks are boolean arrays, True where a query may attend to a key. No function modifies its inputs.
"""

import numpy as np


def scaled_score(Q, K):
    """Score every Query against every Key, scaled by 1 / sqrt(d_k).

    Args:
        Q: (..., n_q, d_k) queries; any leading axes (heads, a batch) are kept.
        K: (..., n_k, d_k) keys, with the same leading axes.

    Returns:
        S: (..., n_q, n_k) with S[..., i, j] = Q[..., i, :] . K[..., j, :] / sqrt(d_k).
    """
    ### BEGIN SOLUTION
    d_k = Q.shape[-1]
    return Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)  # (..., n_q, n_k)
    ### END SOLUTION


def causal_mask(n):
    """The mask of a causal model: token i may attend to token j only when j <= i.

    Args:
        n: the number of tokens, an int.

    Returns:
        (n, n) bool array, True on and below the diagonal.
    """
    ### BEGIN SOLUTION
    return np.tril(np.ones((n, n), dtype=bool))  # (n, n)
    ### END SOLUTION


def padding_mask(lengths, n):
    """The mask of a batch of sentences of different lengths, each padded to n tokens.

    Args:
        lengths: (batch,) int array, each sentence's number of real tokens (1 to n).
        n: the padded length, an int.

    Returns:
        (batch, n, n) bool array: mask[b, i, j] is True when tokens i and j are both real tokens of
        sentence b (a padding token attends to nothing, and nothing attends to it).
    """
    ### BEGIN SOLUTION
    real = np.arange(n) < np.asarray(lengths)[:, None]  # (batch, n): which tokens are real
    return real[:, :, None] & real[:, None, :]  # (batch, n, n)
    ### END SOLUTION


def masked_softmax(S, mask):
    """Softmax along the last axis over the keys the mask keeps; the others get weight exactly 0.

    Stable for scores near 1000 (even when a masked-out score is far above the kept ones), and a
    row whose mask keeps nothing gets weights of 0, not nan.

    Args:
        S: (..., n_q, n_k) scores.
        mask: bool array of the same shape, True where the query may attend to the key.

    Returns:
        Weights of S's shape: each row sums to 1 over its kept keys, or is all 0 if none is kept.
    """
    ### BEGIN SOLUTION
    kept = np.where(mask, S, -np.inf)  # masked-out scores can never win
    top = kept.max(axis=-1, keepdims=True)  # each row's largest kept score, -inf if none
    top[~np.isfinite(top)] = 0.0  # a row that keeps nothing: shift by 0 and stay all -inf
    e = np.exp(kept - top)  # exactly 0 where masked, in (0, 1] elsewhere
    total = e.sum(axis=-1, keepdims=True)  # (..., n_q, 1), 0 for a row that keeps nothing
    return e / np.where(total > 0, total, 1.0)
    ### END SOLUTION


def split_heads(X, n_heads):
    """Cut the columns of a projection into n_heads equal slices, one per head.

    Args:
        X: (n, n_heads * d_head) one projected vector per token.
        n_heads: the number of heads, an int dividing X's width.

    Returns:
        (n_heads, n, d_head): head h holds columns h * d_head to (h + 1) * d_head of X.
    """
    ### BEGIN SOLUTION
    n, width = X.shape
    return X.reshape(n, n_heads, width // n_heads).transpose(1, 0, 2)  # (n_heads, n, d_head)
    ### END SOLUTION


def merge_heads(H):
    """Concatenate the heads' outputs side by side, head 0 first: the inverse of split_heads.

    Args:
        H: (n_heads, n, d_head) one output per head and token.

    Returns:
        (n, n_heads * d_head): token i's row is H[0, i], then H[1, i], and so on.
    """
    ### BEGIN SOLUTION
    n_heads, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, n_heads * d_head)  # (n, n_heads * d_head)
    ### END SOLUTION


def multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None):
    """Multi-head attention: project, split into heads, attend per head, concatenate, project.

    Args:
        X: (n, d_model) one embedding per token.
        W_q, W_k: (d_model, n_heads * d_k) the projections of every head side by side.
        W_v: (d_model, n_heads * d_v).
        W_o: (n_heads * d_v, d_out) the output projection, mixing the heads.
        n_heads: the number of heads, an int.
        mask: (n, n) bool array, True where token i may attend to token j; None lets every token
            attend to every token.

    Returns:
        Tuple (O, A): outputs (n, d_out) and each head's attention matrix, (n_heads, n, n).
    """
    ### BEGIN SOLUTION
    Q = split_heads(X @ W_q, n_heads)  # (n_heads, n, d_k)
    K = split_heads(X @ W_k, n_heads)  # (n_heads, n, d_k)
    V = split_heads(X @ W_v, n_heads)  # (n_heads, n, d_v)
    S = scaled_score(Q, K)  # (n_heads, n, n)
    if mask is None:
        mask = np.ones(S.shape[-2:], dtype=bool)
    A = masked_softmax(S, np.broadcast_to(mask, S.shape))  # (n_heads, n, n)
    O = merge_heads(A @ V) @ W_o  # (n, n_heads * d_v) @ (n_heads * d_v, d_out)
    return O, A
    ### END SOLUTION
