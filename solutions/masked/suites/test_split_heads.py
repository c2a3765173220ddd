"""Hidden checks for split_heads(X, n_heads) -> (n_heads, n, d_head), contiguous column slices."""

import pytest

pytestmark = pytest.mark.part("split_heads")


@pytest.mark.weight(2)
def test_two_plus_three_equals_queries(expect, fx):
    expect.same("split_heads", fx.X @ fx.W_q, fx.n_heads, hidden=False)


@pytest.mark.weight(3)
def test_other_shapes_and_head_counts(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("split_heads", *cases.projection_heads(rng))


def test_input_is_left_unchanged(expect, rng, cases):
    expect.unchanged("split_heads", *cases.projection_heads(rng))
