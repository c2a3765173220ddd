"""The reference against two independent implementations: naive loops and torch."""

import math
import os

import numpy as np
import pytest


def naive_attention(X, W_q, W_k, W_v):
    """Loops over tokens and components; no matrix products, no numpy reductions."""
    n, d_model = X.shape

    def proj(W):
        return [
            [sum(X[t][m] * W[m][c] for m in range(d_model)) for c in range(W.shape[1])]
            for t in range(n)
        ]

    Q, K, V = proj(W_q), proj(W_k), proj(W_v)
    S = [[sum(q * k for q, k in zip(Q[i], K[j])) for j in range(n)] for i in range(n)]
    A = []
    for row in S:
        top = max(row)
        e = [math.exp(s - top) for s in row]
        A.append([x / sum(e) for x in e])
    O = [[sum(A[i][j] * V[j][c] for j in range(n)) for c in range(len(V[0]))] for i in range(n)]
    return np.array(Q), np.array(K), np.array(V), np.array(S), np.array(A), np.array(O)


def random_inputs(seed):
    rng = np.random.default_rng(seed)
    n, d_model, d_k, d_v = rng.integers(1, 7, size=4)
    return (
        rng.normal(size=(n, d_model)),
        rng.normal(size=(d_model, d_k)),
        rng.normal(size=(d_model, d_k)),
        rng.normal(size=(d_model, d_v)),
    )


@pytest.mark.parametrize("seed", range(20))
def test_reference_matches_naive_loops(ref, seed):
    X, W_q, W_k, W_v = random_inputs(seed)
    Q, K, V, S, A, O = naive_attention(X, W_q, W_k, W_v)
    np.testing.assert_allclose(
        np.hstack(ref.project(X, W_q, W_k, W_v)), np.hstack([Q, K, V]), atol=1e-12
    )
    np.testing.assert_allclose(ref.score(Q, K), S, atol=1e-12)
    np.testing.assert_allclose(ref.softmax(S), A, atol=1e-12)
    np.testing.assert_allclose(ref.aggregate(A, V), O, atol=1e-12)
    O2, A2 = ref.attend(X, W_q, W_k, W_v)
    np.testing.assert_allclose(A2, A, atol=1e-12)
    np.testing.assert_allclose(O2, O, atol=1e-12)


@pytest.mark.parametrize("seed", range(10))
def test_reference_matches_torch_sdpa_unscaled(ref, seed):
    """The optional cross-check (`pip install -e '.[crosscheck]'`); CI installs torch and requires it."""
    if os.environ.get("QKV_REQUIRE_TORCH"):
        import torch  # noqa: PLC0415 - a heavy optional extra
    else:
        torch = pytest.importorskip(
            "torch", reason="the optional cross-check: pip install -e '.[crosscheck]'"
        )
    X, W_q, W_k, W_v = random_inputs(100 + seed)
    Q, K, V = (torch.from_numpy(m) for m in ref.project(X, W_q, W_k, W_v))
    expected = torch.nn.functional.scaled_dot_product_attention(Q, K, V, scale=1.0).numpy()
    O, _ = ref.attend(X, W_q, W_k, W_v)
    np.testing.assert_allclose(O, expected, atol=1e-10)


def test_score_handles_different_query_and_key_counts(ref):
    Q = np.arange(6.0).reshape(2, 3)
    K = np.arange(12.0).reshape(4, 3)
    S = ref.score(Q, K)
    assert S.shape == (2, 4)
    assert S[1, 3] == 3 * 9 + 4 * 10 + 5 * 11


def test_softmax_is_stable_for_scores_near_1000_and_works_on_1d(ref):
    row = np.array([1000.0, 1001.0, 1002.0])
    w = ref.softmax(row)
    e = np.exp([-2.0, -1.0, 0.0])
    np.testing.assert_allclose(w, e / e.sum())
    assert ref.softmax(np.stack([row, -row])).shape == (2, 3)


def test_no_reference_function_modifies_its_inputs(ref):
    X, W_q, W_k, W_v = random_inputs(7)
    before = [m.copy() for m in (X, W_q, W_k, W_v)]
    _O, A = ref.attend(X, W_q, W_k, W_v)
    S = np.log(A + 1)
    S_copy = S.copy()
    ref.softmax(S)
    np.testing.assert_array_equal(S, S_copy)
    for a, b in zip((X, W_q, W_k, W_v), before):
        np.testing.assert_array_equal(a, b)
