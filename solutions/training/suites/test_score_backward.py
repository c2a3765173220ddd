"""Hidden checks for score_backward(Q, K, dS) -> (dQ, dK), with n_q != n_k."""

import numpy as np
import pytest

pytestmark = pytest.mark.part("score_backward")


@pytest.mark.weight(2)
def test_two_plus_three(expect, fx):
    expect.same("score_backward", *fx.inputs("score_backward"), hidden=False)


@pytest.mark.weight(2)
def test_more_queries_than_keys_and_fewer(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("score_backward", *cases.score_case(rng))


@pytest.mark.weight(2)
def test_matches_finite_differences(expect, rng, cases, ref):
    Q, K, dS = cases.score_case(rng)
    value, _ = expect.call("score_backward", Q, K, dS)
    msg = cases.fd_problem(value, cases.fd_score_backward(ref, Q, K, dS), names=("dQ", "dK"))
    expect.holds(msg is None, msg or "")


def test_one_scores_gradient_reaches_only_its_query_and_its_key(expect, rng, cases):
    Q, K, dS = cases.score_case(rng)
    i, j = int(rng.integers(Q.shape[0])), int(rng.integers(K.shape[0]))
    one = np.zeros_like(dS)
    one[i, j] = 1.0
    value, _ = expect.call("score_backward", Q, K, one)
    dQ, dK = cases.gradients(value, 2) or (None, None)
    want_q, want_k = np.zeros_like(Q), np.zeros_like(K)
    want_q[i], want_k[j] = K[j], Q[i]
    ok = all(
        g is not None and g.shape == w.shape and np.allclose(g, w)
        for g, w in ((dQ, want_q), (dK, want_k))
    )
    expect.holds(
        ok,
        "with dS = 1 at one score S[i, j] and 0 elsewhere, dQ must be K[j] in row i and dK must be "
        "Q[i] in row j, zero everywhere else: S[i, j] = Q[i] . K[j] touches nothing else",
    )


def test_inputs_are_left_unchanged(expect, rng, cases):
    expect.same("score_backward", *cases.score_case(rng), check_inputs=True)
