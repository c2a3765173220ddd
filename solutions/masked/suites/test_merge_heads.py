"""Hidden checks for merge_heads(H) -> (n, n_heads * d_head), head 0's columns first."""

import pytest

pytestmark = pytest.mark.part("merge_heads")


@pytest.mark.weight(2)
def test_two_plus_three_equals_head_outputs(expect, fx):
    _, _, V = fx.projections()
    expect.same("merge_heads", fx.A @ V, hidden=False)


@pytest.mark.weight(3)
def test_other_shapes(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("merge_heads", *cases.heads(rng))


def test_input_is_left_unchanged(expect, rng, cases):
    expect.unchanged("merge_heads", *cases.heads(rng))
