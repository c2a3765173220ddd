"""Hidden checks for multi_head_attend(X, W_q, W_k, W_v, W_o, n_heads, mask=None) -> (O, A): the
chain, through the student's own functions."""

import numpy as np
import pytest

from qkv.shipped.compare import as_array

pytestmark = pytest.mark.part("multi_head_attend")


def _heads(value, shape, cases):
    """Each head's attention matrix, rounded, if the second item returned has the example's shape."""
    A = as_array(value[1]) if isinstance(value, (tuple, list)) and len(value) == 2 else None
    ok = A is not None and A.shape == shape and bool(np.all(np.isfinite(A)))
    return A.round(cases.ROUNDED).tolist() if ok else None


@pytest.mark.weight(3)
def test_two_plus_three_equals_causal(expect, fx, cases):
    try:
        expect.same("multi_head_attend", *fx.inputs(), hidden=False)
    finally:  # right or wrong, the student's heads go on their feedback page beside the reference's
        expect.record("heads", _heads(expect.last_value, fx.A.shape, cases))


def test_two_plus_three_equals_without_a_mask(expect, fx):
    expect.same("multi_head_attend", *fx.inputs(masked=False), hidden=False)


@pytest.mark.weight(3)
def test_random_shapes_causal(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("multi_head_attend", *cases.attention(rng))


@pytest.mark.weight(2)
def test_random_masks_and_none(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("multi_head_attend", *cases.attention(rng, mask="random"))
    expect.same("multi_head_attend", *cases.attention(rng, mask="none"))


def test_with_a_causal_mask_no_token_sees_a_later_one(expect, rng, cases):
    args, changed = cases.later_token_changed(rng)
    first, _ = expect.call("multi_head_attend", *args)
    second, _ = expect.call("multi_head_attend", *changed)
    a, b = (
        as_array(v[0]) if isinstance(v, (tuple, list)) and len(v) == 2 else None
        for v in (first, second)
    )
    ok = (  # one output row per token: O of 0-d (a number) has no earlier tokens to compare
        a is not None
        and b is not None
        and a.ndim == 2
        and a.shape == b.shape
        and np.allclose(a[:-1], b[:-1])
    )
    expect.holds(
        ok,
        "with the causal mask, changing the last token must leave every earlier token's output as "
        "it was: no token may see a later one",
    )
    expect.counts_if_right("multi_head_attend", first, args, "no token sees a later one")


def test_inputs_are_left_unchanged(expect, rng, cases):
    expect.unchanged("multi_head_attend", *cases.attention(rng))
