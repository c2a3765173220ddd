"""Hidden checks for attend_backward(X, W_q, W_k, W_v, dO) -> (dW_q, dW_k, dW_v): the backward chain."""

import numpy as np
import pytest

pytestmark = pytest.mark.part("attend_backward")


@pytest.mark.weight(2)
def test_two_plus_three(expect, fx):
    expect.same("attend_backward", *fx.inputs("attend_backward"), hidden=False)


@pytest.mark.weight(2)
def test_random_shapes(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("attend_backward", *cases.attend_case(rng))


@pytest.mark.weight(2)
def test_matches_finite_differences(expect, rng, cases, ref):
    args = cases.attend_case(rng)
    value, _ = expect.call("attend_backward", *args)
    msg = cases.fd_problem(
        value, cases.fd_attend_backward(ref, *args), names=("dW_q", "dW_k", "dW_v")
    )
    expect.holds(msg is None, msg or "")


def test_when_every_value_is_the_same_the_weights_get_no_gradient(expect, rng, cases):
    expect.same("attend_backward", *cases.attend_case(rng))  # zeros are right below: not here
    X, W_q, W_k, W_v, dO = cases.equal_values_case(rng)
    value, _ = expect.call("attend_backward", X, W_q, W_k, W_v, dO)
    got = cases.gradients(value, 3)
    ok = (
        got is not None
        and np.allclose(got[0], 0, atol=1e-9)
        and np.allclose(got[1], 0, atol=1e-9)
        and not np.allclose(got[2], 0)
    )
    expect.holds(
        ok,
        "when every token's Value is the same, the output does not depend on the weights, so "
        "dW_q and dW_k must be 0 (and dW_v not)",
    )


def test_inputs_are_left_unchanged(expect, rng, cases):
    expect.same("attend_backward", *cases.attend_case(rng), check_inputs=True)
