"""Hidden checks for masked_softmax(S, mask): weights over the kept keys, 0 elsewhere, stable,
and a row that keeps nothing all 0."""

import numpy as np
import pytest

from qkv.shipped.compare import as_array

pytestmark = pytest.mark.part("masked_softmax")


@pytest.mark.weight(2)
def test_two_plus_three_equals_causal(expect, fx):
    expect.same("masked_softmax", fx.S, np.broadcast_to(fx.mask, fx.S.shape).copy(), hidden=False)


@pytest.mark.weight(2)
def test_random_masks(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("masked_softmax", *cases.scores_mask(rng))


def test_causal_heads(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("masked_softmax", *cases.causal_heads(rng))


def test_a_padded_batch(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("masked_softmax", *cases.padded_batch(rng))


@pytest.mark.weight(2)
def test_scores_near_1000_with_the_largest_masked_out(expect, rng, cases):
    expect.same("masked_softmax", *cases.large_masked(rng))


def test_masked_out_weights_are_exactly_0(expect, rng, cases):
    S, mask = cases.scores_mask(rng)
    value, _ = expect.call("masked_softmax", S, mask)
    W = as_array(value)
    ok = W is not None and W.shape == S.shape and bool(np.all(W[~mask] == 0.0))
    expect.holds(
        ok,
        "every masked-out weight must be exactly 0 (exp(-inf) is 0; a score of -1e9 or a weight "
        "multiplied by a small number is not a masked one)",
    )
    expect.counts_if_right("masked_softmax", value, (S, mask), "masked-out weights are exactly 0")


def test_a_row_that_keeps_nothing_is_all_0_not_nan(expect, rng, cases):
    S, mask = cases.scores_mask(rng)
    empty = ~mask.any(axis=-1)
    value, _ = expect.call("masked_softmax", S, mask)
    W = as_array(value)
    ok = W is not None and W.shape == S.shape and bool(np.all(W[empty] == 0.0))
    expect.holds(
        ok,
        "a row whose mask keeps no key must come out as weights of 0 (a padding token attends to "
        "nothing), not nan from 0 / 0 nor the same weight everywhere",
    )
    expect.counts_if_right("masked_softmax", value, (S, mask), "a row that keeps nothing is all 0")


def test_inputs_are_left_unchanged(expect, rng, cases):
    expect.unchanged("masked_softmax", *cases.scores_mask(rng))
