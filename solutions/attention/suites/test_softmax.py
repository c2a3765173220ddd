"""Hidden checks for softmax(S): rows of weights, stable, along the last axis."""
import numpy as np
import pytest

from autograder.public.compare import as_array

pytestmark = pytest.mark.part("softmax")


@pytest.mark.weight(2)
def test_two_plus_three_scores(expect, fx):
    expect.same("softmax", fx.S, hidden=False)


@pytest.mark.weight(2)
def test_random_rectangular_scores(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("softmax", cases.scores(rng))


def test_one_dimensional_row(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("softmax", cases.score_row(rng))


@pytest.mark.weight(2)
def test_scores_near_1000_stay_finite(expect, rng, cases):
    expect.same("softmax", cases.large_scores(rng))


def test_rows_sum_to_one_and_weights_are_positive(expect, rng, cases):
    value, _ = expect.call("softmax", cases.scores(rng))
    W = as_array(value)
    expect.holds(W is not None and W.ndim == 2 and bool(np.all(W > 0)) and np.allclose(W.sum(axis=-1), 1.0),
                 "each row of weights must be positive and sum to 1")


def test_adding_a_constant_to_a_row_changes_nothing(expect, rng, cases):
    S = cases.scores(rng)
    first = as_array(expect.same("softmax", S))
    shifted = as_array(expect.same("softmax", S + rng.normal(size=(S.shape[0], 1)) * 50))
    expect.holds(np.allclose(first, shifted), "softmax(S + c) must equal softmax(S) for a constant c per row")


def test_input_is_left_unchanged(expect, rng, cases):
    expect.same("softmax", cases.scores(rng), check_inputs=True)
