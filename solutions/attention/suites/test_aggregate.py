"""Hidden checks for aggregate(A, V) -> O, given the reference's weights (never the student's)."""

import pytest

pytestmark = pytest.mark.part("aggregate")


@pytest.mark.weight(2)
def test_two_plus_three_weights_and_values(expect, fx, ref):
    _, _, V = ref.project(*fx.inputs())
    expect.same("aggregate", fx.A, V, hidden=False)


@pytest.mark.weight(3)
def test_more_queries_than_keys_and_fewer(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("aggregate", *cases.weights_values(rng))


def test_inputs_are_left_unchanged(expect, rng, cases):
    expect.unchanged("aggregate", *cases.weights_values(rng))
