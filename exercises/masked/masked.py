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
    # YOUR CODE HERE
    raise NotImplementedError()


def causal_mask(n):
    """The mask of a causal model: token i may attend to token j only when j <= i.

    Args:
        n: the number of tokens, an int.

    Returns:
        (n, n) bool array, True on and below the diagonal.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def padding_mask(lengths, n):
    """The mask of a batch of sentences of different lengths, each padded to n tokens.

    Args:
        lengths: (batch,) int array, each sentence's number of real tokens (1 to n).
        n: the padded length, an int.

    Returns:
        (batch, n, n) bool array: mask[b, i, j] is True when tokens i and j are both real tokens of
        sentence b (a padding token attends to nothing, and nothing attends to it).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


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
    # YOUR CODE HERE
    raise NotImplementedError()


def split_heads(X, n_heads):
    """Cut the columns of a projection into n_heads equal slices, one per head.

    Args:
        X: (n, n_heads * d_head) one projected vector per token.
        n_heads: the number of heads, an int dividing X's width.

    Returns:
        (n_heads, n, d_head): head h holds columns h * d_head to (h + 1) * d_head of X.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def merge_heads(H):
    """Concatenate the heads' outputs side by side, head 0 first: the inverse of split_heads.

    Args:
        H: (n_heads, n, d_head) one output per head and token.

    Returns:
        (n, n_heads * d_head): token i's row is H[0, i], then H[1, i], and so on.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


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
    # YOUR CODE HERE
    raise NotImplementedError()
