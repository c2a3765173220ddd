"""Hidden checks for padding_mask(lengths, n): (batch, n, n), True between two real tokens."""

import numpy as np
import pytest

pytestmark = pytest.mark.part("padding_mask")


@pytest.mark.weight(2)
def test_three_sentences_padded_to_four(expect):
    expect.same("padding_mask", np.array([3, 1, 4]), 4, hidden=False)


@pytest.mark.weight(3)
def test_other_batches(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("padding_mask", *cases.lengths(rng))


def test_a_batch_with_no_padding_keeps_everything(expect, rng, cases):
    lengths, n = cases.lengths(rng)
    lengths[:] = n
    expect.same("padding_mask", lengths, n)


def test_lengths_are_left_unchanged(expect, rng, cases):
    expect.unchanged("padding_mask", *cases.lengths(rng))
