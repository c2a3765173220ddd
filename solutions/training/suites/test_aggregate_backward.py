"""Hidden checks for aggregate_backward(A, V, dO) -> (dA, dV), with n_q, n_k and d_v all different."""

import numpy as np
import pytest

pytestmark = pytest.mark.part("aggregate_backward")


@pytest.mark.weight(2)
def test_two_plus_three(expect, fx):
    expect.same("aggregate_backward", *fx.inputs("aggregate_backward"), hidden=False)


@pytest.mark.weight(2)
def test_more_queries_than_keys_and_fewer(expect, rng, n_cases, cases, ref):
    for _ in range(n_cases):
        expect.same("aggregate_backward", *cases.aggregate_case(rng, ref))


@pytest.mark.weight(2)
def test_matches_finite_differences(expect, rng, cases, ref):
    A, V, dO = cases.aggregate_case(rng, ref)
    value, _ = expect.call("aggregate_backward", A, V, dO)
    msg = cases.fd_problem(value, cases.fd_aggregate_backward(ref, A, V, dO), names=("dA", "dV"))
    expect.holds(msg is None, msg or "")


def test_value_gradients_add_up_to_the_output_gradients(expect, rng, cases, ref):
    A, V, dO = cases.aggregate_case(rng, ref)
    value, _ = expect.call("aggregate_backward", A, V, dO)
    _, dV = cases.gradients(value, 2) or (None, None)
    ok = dV is not None and dV.shape == V.shape and np.allclose(dV.sum(axis=0), dO.sum(axis=0))
    expect.holds(
        ok,
        "the rows of dV must add up to the rows of dO: each row of A sums to 1, so every bit of "
        "an output's gradient goes to some Value",
    )


def test_inputs_are_left_unchanged(expect, rng, cases, ref):
    expect.same("aggregate_backward", *cases.aggregate_case(rng, ref), check_inputs=True)
