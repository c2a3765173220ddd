"""Hidden checks for causal_mask(n): True on and below the diagonal, as booleans."""

import pytest

pytestmark = pytest.mark.part("causal_mask")


@pytest.mark.weight(2)
def test_four_tokens(expect):
    expect.same("causal_mask", 4, hidden=False)


@pytest.mark.weight(2)
def test_other_lengths(expect, rng, n_cases, cases):
    for _ in range(n_cases):
        expect.same("causal_mask", cases.size(rng))


def test_one_token_sees_itself(expect):
    expect.same("causal_mask", 1)


def test_the_mask_is_made_of_booleans(expect, rng, cases):
    n = cases.size(rng)
    value, _ = expect.call("causal_mask", n)
    expect.holds(
        cases.booleans(value),
        "the mask must be an array of booleans (dtype=bool), as np.tril(np.ones((n, n), "
        "dtype=bool)) gives: ~mask and S[mask] need booleans, and 0/1 numbers index rows instead",
    )
    expect.counts_if_right("causal_mask", value, (n,), "the mask is made of booleans")
