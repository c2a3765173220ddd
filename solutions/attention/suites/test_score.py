"""Hidden checks for score(Q, K) -> S, raw dot products."""

import pytest

pytestmark = pytest.mark.part("score")


@pytest.mark.weight(2)
def test_two_plus_three_queries_and_keys(expect, fx, ref):
    Q, K, _ = ref.project(*fx.inputs())
    expect.same("score", Q, K, hidden=False)


@pytest.mark.weight(3)
def test_more_queries_than_keys_and_fewer(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("score", *cases.queries_keys(rng))


def test_inputs_are_left_unchanged(expect, rng, cases):
    expect.unchanged("score", *cases.queries_keys(rng))
