"""Hidden checks for softmax(S): rows of weights, stable, along the last axis."""

import numpy as np
import pytest

from qkv.shipped.compare import as_array

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
def test_scores_near_1000_and_rows_spanning_2000_stay_finite(expect, rng, cases):
    expect.same("softmax", cases.large_scores(rng))


def test_one_row_spanning_2000_stays_finite(expect, rng, cases):
    expect.same("softmax", cases.wide_row(rng))


def test_rows_sum_to_one_and_weights_are_non_negative(expect, rng, cases):
    S = cases.scores(rng)
    value, _ = expect.call("softmax", S)
    W = as_array(value)
    expect.holds(
        W is not None
        and W.shape == S.shape
        and bool(np.all(W >= 0))
        and np.allclose(W.sum(axis=-1), 1.0),
        "each row of weights must be non-negative and sum to 1 (a weight is exp(score) over the row's "
        "sum of exp)",
    )
    expect.counts_if_right("softmax", value, (S,), "each row is non-negative and sums to 1")


def test_adding_a_constant_to_a_row_changes_nothing(expect, rng, cases):
    S = cases.scores(rng)
    first, _ = expect.call("softmax", S)
    shifted, _ = expect.call("softmax", S + rng.normal(size=(S.shape[0], 1)) * 50)
    a, b = as_array(first), as_array(shifted)
    expect.holds(
        a is not None and b is not None and a.shape == b.shape and np.allclose(a, b),
        "softmax(S + c) must equal softmax(S) when c is added to a whole row: only differences "
        "between a row's scores may matter",
    )
    expect.counts_if_right("softmax", first, (S,), "softmax(S + c) equals softmax(S)")


def test_input_is_left_unchanged(expect, rng, cases):
    expect.unchanged("softmax", cases.scores(rng))
