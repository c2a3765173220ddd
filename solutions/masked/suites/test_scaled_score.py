"""Hidden checks for scaled_score(Q, K): dot products over sqrt(d_k), for one head or several."""

import pytest

from qkv.shipped.compare import as_array

pytestmark = pytest.mark.part("scaled_score")


@pytest.mark.weight(2)
def test_two_plus_three_equals_heads(expect, fx):
    Q, K, _ = fx.projections()
    expect.same("scaled_score", Q, K, hidden=False)


@pytest.mark.weight(2)
def test_more_queries_than_keys_and_fewer(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("scaled_score", *cases.queries_keys(rng))


@pytest.mark.weight(2)
def test_one_set_of_queries_and_keys_per_head(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("scaled_score", *cases.head_queries_keys(rng))


def test_the_spread_of_random_scores_stays_near_1_however_wide_the_keys(expect, rng):
    d_k = 256
    Q, K = rng.normal(size=(40, d_k)), rng.normal(size=(30, d_k))
    value, _ = expect.call("scaled_score", Q, K)
    S = as_array(value)
    spread = float(S.std()) if S is not None and S.shape == (40, 30) else float("nan")
    expect.holds(
        0.8 < spread < 1.25,
        f"for random unit-variance Queries and Keys with d_k = {d_k}, the scores' standard "
        f"deviation is {spread:.3g}; dividing by sqrt(d_k) keeps it near 1 (raw dot products "
        "spread like sqrt(d_k) = 16)",
    )
    expect.counts_if_right("scaled_score", value, (Q, K), "the scores' spread stays near 1")


def test_inputs_are_left_unchanged(expect, rng, cases):
    expect.unchanged("scaled_score", *cases.head_queries_keys(rng))
