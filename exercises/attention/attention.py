"""Dot-product attention (unscaled), one small function per idea.

A transformer lets every token look at every other token and decide how much of each to take in.
Each token's embedding is projected into three vectors: a Query (what am I looking for?), a Key
(what do I offer to be found by?) and a Value (what do I pass on if chosen?). A Query is scored
against every Key with a dot product, softmax turns one row of scores into weights that sum to 1,
and the token's output is the weighted sum of the Values (Vaswani et al., "Attention Is All You
Need", 2017, section 3.2; this exercise leaves out the 1/sqrt(d_k) scaling).

Shapes: n tokens, model width d_model, key width d_k, value width d_v. No function modifies its
inputs.
"""
import numpy as np


def project(X, W_q, W_k, W_v):
    """Project token embeddings into Queries, Keys and Values.

    Args:
        X: (n, d_model) one embedding per token.
        W_q, W_k: (d_model, d_k) learned projections, shared by every token.
        W_v: (d_model, d_v) learned projection for Values.

    Returns:
        Tuple (Q, K, V) of shapes (n, d_k), (n, d_k), (n, d_v).
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def score(Q, K):
    """Score every Query against every Key with a raw dot product (no scaling).

    Args:
        Q: (n_q, d_k) queries.
        K: (n_k, d_k) keys; n_k may differ from n_q.

    Returns:
        S: (n_q, n_k) with S[i, j] = Q[i] . K[j].
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def softmax(S):
    """Turn scores into weights along the last axis.

    Subtracting each row's maximum first changes nothing mathematically (softmax is unchanged by
    adding a constant to a row) but keeps exp() from overflowing for scores near 1000.

    Args:
        S: (n,) one row of scores, or (n_q, n_k) one row per query.

    Returns:
        Array of the same shape, non-negative, each row summing to 1.
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def aggregate(A, V):
    """Mix the Values by the attention weights.

    Args:
        A: (n_q, n_k) weights, each row summing to 1.
        V: (n_k, d_v) one value per key.

    Returns:
        O: (n_q, d_v) with O[i] = sum_j A[i, j] V[j].
    """
    # YOUR CODE HERE
    raise NotImplementedError()


def attend(X, W_q, W_k, W_v):
    """Run the whole chain: project, score, softmax, aggregate.

    Args:
        X, W_q, W_k, W_v: as for project().

    Returns:
        Tuple (O, A): outputs (n, d_v) and the attention matrix (n, n).
    """
    # YOUR CODE HERE
    raise NotImplementedError()
