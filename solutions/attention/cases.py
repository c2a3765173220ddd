"""Cases for the attention assignment's checks: random draws for the hidden suites (from a
generator the grader seeds per student) and the fixed public cases students may see.
"""

from __future__ import annotations

import numpy as np

# Shapes stay small (at most 7 per side) so a pure-Python-loop solution passes within the limits,
# and every draw makes the sides that could be confused differ (n_q != n_k, d_k != d_v, ...).


def _distinct(rng: np.random.Generator, k: int, low: int = 2, high: int = 8) -> list[int]:
    """k different sizes in [low, high), every ordered choice alike: the first k of a shuffled range
    (a quarter of what rng.choice(..., replace=False) costs)."""
    return [low + i for i in rng.permutation(high - low)[:k].tolist()]


def projection(rng: np.random.Generator):
    """X (n, d_model), W_q and W_k (d_model, d_k), W_v (d_model, d_v), with n, d_model, d_k, d_v all different."""
    n, d_model, d_k, d_v = _distinct(rng, 4)
    return (
        rng.normal(size=(n, d_model)),
        rng.normal(size=(d_model, d_k)),
        rng.normal(size=(d_model, d_k)),
        rng.normal(size=(d_model, d_v)),
    )


def queries_keys(rng: np.random.Generator):
    """Q (n_q, d_k) and K (n_k, d_k) with n_q != n_k."""
    n_q, n_k, d_k = _distinct(rng, 3)
    return rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k))


def scores(rng: np.random.Generator, *, scale: float = 2.0, offset: float = 0.0):
    """S (n_q, n_k), n_q != n_k."""
    n_q, n_k = _distinct(rng, 2)
    return offset + scale * rng.normal(size=(n_q, n_k))


def score_row(rng: np.random.Generator):
    """One 1-D row of scores."""
    return 2.0 * rng.normal(size=int(rng.integers(2, 8)))


def large_scores(rng: np.random.Generator):
    """Scores of magnitude ~1000, five kinds of row in turn, so that each wrong shift fails on its own rows:

    near +1000 with a spread of a few units (no shift at all overflows), near -1000 likewise (the
    whole matrix's maximum underflows them to 0/0), a row spanning 2000 whose first score is the
    lowest but whose mean is within 700 of its maximum (shifting by the first score overflows),
    one whose first score is near its maximum but whose mean is far below (shifting by the mean
    overflows), and ordinary scores near 0, which only the whole matrix's maximum underflows (so
    a shift by each row's largest |score|, wrong on the rows near -1000, is not told it used the
    whole matrix). Shifting by the minimum fails on both wide kinds; clipping the scores, on all.
    """
    n_q, n_k = _distinct(rng, 2, low=5, high=9)
    S = np.empty((n_q, n_k))
    for i in range(n_q):
        kind = i % 5
        if kind == 4:
            S[i] = 3.0 * rng.normal(size=n_k)
            continue
        if kind < 2:
            S[i] = (1000.0 + 3.0 * rng.normal(size=n_k)) * (1 if kind == 0 else -1)
            continue
        top = int(rng.integers(1, n_k))
        if kind == 2:
            S[i] = rng.uniform(850.0, 990.0, size=n_k)
            S[i, 0] = -1000.0 + rng.normal()
        else:
            S[i] = rng.uniform(-1000.0, -900.0, size=n_k)
            S[i, 0] = 1000.0 - rng.uniform(10.0, 60.0)
        S[i, top] = 1000.0 + rng.uniform(0.0, 1.0)
    return S


def wide_row(rng: np.random.Generator):
    """One 1-D row spanning [-1000, 1000], its maximum not first."""
    n = int(rng.integers(3, 8))
    row = rng.uniform(-900.0, 900.0, size=n)
    top, bottom = rng.choice(np.arange(1, n), size=2, replace=False)
    row[top], row[bottom] = 1000.0 + rng.normal(), -1000.0 + rng.normal()
    return row


def weights_values(rng: np.random.Generator):
    """A (n_q, n_k) with rows summing to 1, V (n_k, d_v); n_q, n_k, d_v all different.

    Renormalising the weights in place (A /= A.sum(...)) leaves a row that sums to exactly 1.0 as it
    was, bit for bit: when every row does, the first is scaled by a few parts in 10**16 until its
    sum is not exactly 1.0, so that such code changes its input where the grader sees it."""
    n_q, n_k, d_v = _distinct(rng, 3)
    e = np.exp(rng.normal(size=(n_q, n_k)))
    A = e / e.sum(axis=1, keepdims=True)
    while (A.sum(axis=1) == 1.0).all():
        A[0] *= 1.0 + 2.0**-51
    return A, rng.normal(size=(n_k, d_v))


def public(example, reference) -> dict[str, list[tuple[str, tuple]]]:
    """The fixed public cases, by function: the worked example and a few small hand-made ones."""
    Q, K, V = reference.project(*example.inputs())
    q2 = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0]])  # (n_q=2, d_k=3)
    k4 = np.array(
        [[1.0, 1.0, 0.0], [0.0, 2.0, 1.0], [-1.0, 0.0, 1.0], [0.5, 0.5, 0.5]]
    )  # (n_k=4, d_k=3)
    a23 = np.array([[0.5, 0.25, 0.25], [0.0, 1.0, 0.0]])  # (n_q=2, n_k=3)
    v32 = np.array([[1.0, 2.0], [3.0, -1.0], [0.0, 4.0]])  # (n_k=3, d_v=2)
    return {
        "project": [("the 'two plus three' embeddings", example.inputs())],
        "score": [("the 'two plus three' Q and K", (Q, K)), ("2 queries against 4 keys", (q2, k4))],
        "softmax": [
            ("the 'two plus three' scores", (example.S,)),
            ("the seed's row of scores [2.1, 0.3, 2.0] for 'plus'", (np.array([2.1, 0.3, 2.0]),)),
            (
                "scores near 1000",
                (
                    np.array(
                        [
                            [1000.0, 1001.0, 1002.0],
                            [-1000.0, 0.0, 1000.0],
                            [0.0, 1000.0, -1000.0],
                            [-1002.0, -1000.0, -1001.0],
                        ]
                    ),
                ),
            ),
        ],
        "aggregate": [
            ("the 'two plus three' weights and values", (example.A, V)),
            ("2 queries mixing 3 values", (a23, v32)),
        ],
        "attend": [("the 'two plus three' example", example.inputs())],
    }
