"""Hidden checks for project(X, W_q, W_k, W_v) -> (Q, K, V)."""

import pytest

pytestmark = pytest.mark.part("project")


@pytest.mark.weight(2)
def test_two_plus_three_embeddings(expect, fx):
    expect.same("project", *fx.inputs(), hidden=False)


@pytest.mark.weight(3)
def test_random_shapes(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("project", *cases.projection(rng))


def test_inputs_are_left_unchanged(expect, rng, cases):
    expect.unchanged("project", *cases.projection(rng))
