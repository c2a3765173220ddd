"""Hidden checks for project_backward(X, dQ, dK, dV) -> (dW_q, dW_k, dW_v)."""

import numpy as np
import pytest

pytestmark = pytest.mark.part("project_backward")


@pytest.mark.weight(2)
def test_two_plus_three(expect, fx):
    expect.same("project_backward", *fx.inputs("project_backward"), hidden=False)


@pytest.mark.weight(2)
def test_random_shapes(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        args, _ = cases.project_case(rng)
        expect.same("project_backward", *args)


@pytest.mark.weight(2)
def test_matches_finite_differences(expect, rng, cases, ref):
    args, W = cases.project_case(rng)
    value, _ = expect.call("project_backward", *args)
    msg = cases.fd_problem(
        value, cases.fd_project_backward(ref, *args, W), names=("dW_q", "dW_k", "dW_v")
    )
    expect.holds(msg is None, msg or "")


def test_each_gradient_comes_from_its_own_projection(expect, rng, cases):
    (X, dQ, dK, dV), _ = cases.project_case(rng)
    expect.same("project_backward", X, dQ, dK, dV)  # zeros are right below: not here
    value, _ = expect.call("project_backward", X, dQ, np.zeros_like(dK), np.zeros_like(dV))
    got = cases.gradients(value, 3)
    ok = (
        got is not None
        and not np.allclose(got[0], 0)
        and np.allclose(got[1], 0)
        and np.allclose(got[2], 0)
    )
    expect.holds(
        ok,
        "with dK and dV zero, dW_k and dW_v must be zero and dW_q not: each matrix's gradient "
        "comes only from the projection it makes",
    )


def test_inputs_are_left_unchanged(expect, rng, cases):
    args, _ = cases.project_case(rng)
    expect.same("project_backward", *args, check_inputs=True)
