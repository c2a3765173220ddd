"""Cases for the masked assignment's checks: random draws for the hidden suites (from a generator
the grader seeds per student) and the fixed public cases students may see.

Sizes are Python ints and masks numpy bool arrays, as a student's code receives them. Shapes stay
small, and every draw makes the sizes that could be confused differ (n_q != n_k, d_k != d_v, ...).
"""

from __future__ import annotations

import numpy as np

ROUNDED = 4  # decimals of the weights recorded for the feedback page


def _distinct(rng: np.random.Generator, k: int, low: int = 2, high: int = 8) -> list[int]:
    """k different ints in [low, high): the first k of a shuffled range."""
    return [low + i for i in rng.permutation(high - low)[:k].tolist()]


# -- scaled_score --------------------------------------------------------------------------------


def queries_keys(rng: np.random.Generator):
    """Q (n_q, d_k) and K (n_k, d_k), n_q != n_k, d_k at least 2 (so that sqrt(d_k) != d_k)."""
    n_q, n_k, d_k = _distinct(rng, 3)
    return rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k))


def head_queries_keys(rng: np.random.Generator):
    """Q (h, n_q, d_k) and K (h, n_k, d_k): one set per head, h, n_q, n_k and d_k all different."""
    h, n_q, n_k, d_k = _distinct(rng, 4)
    return rng.normal(size=(h, n_q, d_k)), rng.normal(size=(h, n_k, d_k))


# -- masks ---------------------------------------------------------------------------------------


def size(rng: np.random.Generator, low: int = 2, high: int = 9) -> int:
    return _distinct(rng, 1, low, high)[0]


def lengths(rng: np.random.Generator):
    """(lengths, n): a batch of 2 to 5 sentences padded to n tokens, one of them full length and one
    shorter than n - 1, the batch size different from n."""
    n = size(rng, 3, 8)
    batch = _distinct(rng, 1, 2, 6)[0]
    while batch == n:
        batch = _distinct(rng, 1, 2, 6)[0]
    got = rng.integers(1, n + 1, size=batch)
    got[0] = n
    got[1] = rng.integers(1, n - 1)
    return rng.permutation(got), n


def padded(lengths, n: int) -> np.ndarray:
    """The padding mask of these lengths, written out here, for the masked_softmax cases."""
    real = np.arange(n)[None, :] < np.asarray(lengths)[:, None]
    return real[:, :, None] & real[:, None, :]


def booleans(value) -> bool:
    """Whether value is an array of booleans (or a list of lists of them, which numpy reads so)."""
    try:
        return np.asarray(value).dtype == bool
    except ValueError:  # ragged lists
        return False


def causal(n: int) -> np.ndarray:
    return np.arange(n)[:, None] >= np.arange(n)[None, :]


# -- masked_softmax ------------------------------------------------------------------------------


def scores_mask(rng: np.random.Generator):
    """S (n_q, n_k) and a random mask with a row keeping everything, one keeping nothing and one
    keeping a single key; the other rows keep about half."""
    n_q, n_k = _distinct(rng, 2, low=4)
    S = 2.0 * rng.normal(size=(n_q, n_k))
    mask = rng.random(size=(n_q, n_k)) < 0.5
    full, empty, single = rng.permutation(n_q)[:3].tolist()
    mask[full], mask[empty], mask[single] = True, False, False
    mask[single, rng.integers(n_k)] = True
    return S, mask


def causal_heads(rng: np.random.Generator):
    """S (h, n, n) scores of several heads and the causal mask repeated for each."""
    h, n = _distinct(rng, 2)
    return 2.0 * rng.normal(size=(h, n, n)), np.broadcast_to(causal(n), (h, n, n)).copy()


def padded_batch(rng: np.random.Generator):
    """S (batch, n, n) and the padding mask of a batch: its padding rows keep nothing."""
    got, n = lengths(rng)
    return 2.0 * rng.normal(size=(len(got), n, n)), padded(got, n)


def large_masked(rng: np.random.Generator):
    """Scores near +-1000 where the masked-out scores are the largest of their rows, by about 1000:
    a shift by the row's maximum over every key, or a softmax taken before masking, underflows the
    kept weights to 0 / 0. Two rows keep scores near -1000 only, and one row's scores, masked or
    not, are all small (a softmax masked afterwards and not renormalised shows there)."""
    n_q, n_k = _distinct(rng, 2, low=4)
    mask = rng.random(size=(n_q, n_k)) < 0.5
    mask[:, 0], mask[:, 1] = True, False
    S = np.where(mask, 3.0 * rng.normal(size=(n_q, n_k)), 1000.0 + rng.normal(size=(n_q, n_k)))
    S[:2] = np.where(mask[:2], -1000.0 + 3.0 * rng.normal(size=(2, n_k)), S[:2])
    S[2] = 3.0 * rng.normal(size=n_k)
    return S, mask


# -- heads ---------------------------------------------------------------------------------------


def projection_heads(rng: np.random.Generator):
    """(X, n_heads): X (n, n_heads * d_head) with n, n_heads and d_head all different."""
    n, n_heads, d_head = _distinct(rng, 3, low=2, high=6)
    return rng.normal(size=(n, n_heads * d_head)), n_heads


def heads(rng: np.random.Generator):
    """H (n_heads, n, d_head) with n_heads, n and d_head all different."""
    n_heads, n, d_head = _distinct(rng, 3, low=2, high=6)
    return (rng.normal(size=(n_heads, n, d_head)),)


# -- multi_head_attend ---------------------------------------------------------------------------


def attention(rng: np.random.Generator, mask: str = "causal"):
    """(X, W_q, W_k, W_v, W_o, n_heads[, mask]) with n, d_model, n_heads, d_k, d_v, d_out all
    different; mask "causal", "random" (some rows keep nothing) or "none" (left out)."""
    n, d_model, n_heads, d_k, d_v, d_out = _distinct(rng, 6, low=2, high=9)
    args = (
        rng.normal(size=(n, d_model)),
        rng.normal(size=(d_model, n_heads * d_k)),
        rng.normal(size=(d_model, n_heads * d_k)),
        rng.normal(size=(d_model, n_heads * d_v)),
        rng.normal(size=(n_heads * d_v, d_out)),
        n_heads,
    )
    if mask == "none":
        return args
    if mask == "causal":
        return (*args, causal(n))
    keep = rng.random(size=(n, n)) < 0.6
    keep[rng.integers(n)] = False
    return (*args, keep)


def later_token_changed(rng: np.random.Generator):
    """A causal case and its X with the last token's embedding replaced."""
    args = attention(rng)
    X = args[0].copy()
    X[-1] = rng.normal(size=X.shape[1])
    return args, (X, *args[1:])


def public(example, reference) -> dict[str, list[tuple[str, tuple]]]:
    """The fixed public cases, by function: the worked example and a few small hand-made ones."""
    Q, K, _ = example.projections()
    q2 = np.array([[1.0, 0.0, 2.0, 1.0], [0.0, 1.0, -1.0, 1.0]])  # (n_q=2, d_k=4)
    k3 = np.array([[1.0, 1.0, 0.0, 1.0], [0.0, 2.0, 1.0, 0.0], [-1.0, 0.0, 1.0, 2.0]])  # (n_k=3, 4)
    s = np.array([[1.0, 2.0, 3.0], [1000.0, 2.0, 1.0], [0.5, -0.5, 0.0]])
    keep = np.array([[True, True, True], [False, True, True], [False, False, False]])
    h23 = np.arange(12.0).reshape(2, 3, 2)  # (n_heads=2, n=3, d_head=2)
    lengths = np.array([3, 1, 4])
    return {
        "scaled_score": [
            ("the 'two plus three equals' heads' Q and K", (Q, K)),
            ("2 queries against 3 keys, d_k = 4", (q2, k3)),
        ],
        "causal_mask": [("4 tokens", (4,)), ("1 token", (1,))],
        "padding_mask": [("sentences of 3, 1 and 4 tokens padded to 4", (lengths, 4))],
        "masked_softmax": [
            (
                "the 'two plus three equals' scores, no mask",
                (example.S, np.ones(example.S.shape, bool)),
            ),
            (
                "the 'two plus three equals' scores, causal mask",
                (example.S, np.broadcast_to(example.mask, example.S.shape).copy()),
            ),
            ("a masked-out score of 1000 and a row that keeps nothing", (s, keep)),
            ("a padded batch", (np.ones((3, 4, 4)), reference.padding_mask(lengths, 4))),
        ],
        "split_heads": [
            ("the 'two plus three equals' X @ W_q, 2 heads", (example.X @ example.W_q, 2))
        ],
        "merge_heads": [("2 heads of 3 tokens, d_head = 2", (h23,))],
        "multi_head_attend": [
            ("'two plus three equals', causal", example.inputs()),
            ("'two plus three equals', no mask", example.inputs(masked=False)),
        ],
    }
