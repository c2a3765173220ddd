"""Hidden checks for attend(X, W_q, W_k, W_v) -> (O, A): the one part that tests the chain."""

import numpy as np
import pytest

from qkv.shipped.compare import as_array

pytestmark = pytest.mark.part("attend")


@pytest.mark.weight(2)
def test_two_plus_three(expect, fx):
    try:
        expect.same("attend", *fx.inputs(), hidden=False)
    finally:  # right or wrong, the student's A goes on their feedback page beside the reference's
        value = expect.last_value
        A = as_array(value[1]) if isinstance(value, (tuple, list)) and len(value) == 2 else None
        ok = A is not None and A.shape == fx.A.shape and bool(np.all(np.isfinite(A)))
        # Kept to 12 significant digits: a full-marks A must compare equal to the reference's at the
        # course's tolerance (4 decimals made every cell of a right answer differ).
        expect.record(
            "attention", [[float(f"{x:.12g}") for x in row] for row in A.tolist()] if ok else None
        )


@pytest.mark.weight(3)
def test_random_shapes(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("attend", *cases.projection(rng))


def test_attention_rows_sum_to_one(expect, rng, cases):
    args = cases.projection(rng)
    value, _ = expect.call("attend", *args)
    A = as_array(value[1]) if isinstance(value, (tuple, list)) and len(value) == 2 else None
    expect.holds(
        A is not None and A.ndim == 2 and np.allclose(A.sum(axis=-1), 1.0),
        "the attention matrix (the second item returned) must have rows that sum to 1",
    )
    expect.counts_if_right("attend", value, args, "the attention matrix's rows sum to 1")


def test_inputs_are_left_unchanged(expect, rng, cases):
    expect.unchanged("attend", *cases.projection(rng))
