"""Hidden checks for softmax_backward(A, dA) -> dS, along the last axis, 1-D and 2-D."""

import numpy as np
import pytest

pytestmark = pytest.mark.part("softmax_backward")


@pytest.mark.weight(2)
def test_two_plus_three(expect, fx):
    expect.same("softmax_backward", *fx.inputs("softmax_backward"), hidden=False)


@pytest.mark.weight(2)
def test_random_rectangular_rows(expect, rng, n_cases, cases, ref):
    for _ in range(n_cases):
        _, A, dA = cases.softmax_case(rng, ref)
        expect.same("softmax_backward", A, dA)


def test_one_dimensional_row(expect, rng, n_cases, cases, ref):
    for _ in range(n_cases):
        _, A, dA = cases.softmax_case(rng, ref, ndim=1)
        expect.same("softmax_backward", A, dA)


@pytest.mark.weight(2)
def test_matches_finite_differences(expect, rng, cases, ref):
    S, A, dA = cases.softmax_case(rng, ref)
    value, _ = expect.call("softmax_backward", A, dA)
    msg = cases.fd_problem(value, cases.fd_softmax_backward(ref, S, dA))
    expect.holds(msg is None, f"dS: {msg}")


def test_each_row_of_ds_sums_to_zero(expect, rng, cases, ref):
    _, A, dA = cases.softmax_case(rng, ref)
    value, _ = expect.call("softmax_backward", A, dA)
    dS = cases.as_array(value)
    expect.holds(
        dS is not None and dS.shape == A.shape and np.allclose(dS.sum(axis=-1), 0.0, atol=1e-9),
        "each row of dS must sum to 0: adding the same amount to every score of a row leaves its "
        "weights unchanged, so the loss cannot change that way",
    )


def test_adding_a_constant_to_a_row_of_da_changes_nothing(expect, rng, cases, ref):
    _, A, dA = cases.softmax_case(rng, ref)
    first = cases.as_array(expect.same("softmax_backward", A, dA))
    shifted = cases.as_array(
        expect.same("softmax_backward", A, dA + 3.0 * rng.normal(size=(A.shape[0], 1)))
    )
    expect.holds(
        first is not None and shifted is not None and np.allclose(first, shifted),
        "softmax_backward(A, dA + c) must equal softmax_backward(A, dA) for a constant c per row: "
        "raising every weight of a row alike is impossible, since the row sums to 1",
    )


def test_inputs_are_left_unchanged(expect, rng, cases, ref):
    _, A, dA = cases.softmax_case(rng, ref)
    expect.same("softmax_backward", A, dA, check_inputs=True)
