"""How a wrong answer relates to the right one, for answers no catalogued mistake explains."""

import numpy as np
import pytest

from qkv.results.outcomes import Outcome
from qkv.results.records import TestResult as Result
from qkv.suites import relations
from qkv.suites.ledger import Ledger, counted

RNG = np.random.default_rng(7)
RIGHT = RNG.normal(size=(3, 4))
ARGS = (np.zeros((3, 4)), np.zeros((5, 4)))  # sizes 3, 4 and 5


def _told(actual, expected=RIGHT):
    return relations.describe(actual, expected, ARGS, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize(
    ("actual", "says"),
    [
        (-RIGHT, "sign flipped: check the sign"),
        (RIGHT.T, "transposed"),
        (RIGHT / 2, "0.5 = 1/2 = 1/sqrt(4), where 4 is a size of the inputs"),
        (RIGHT / np.sqrt(5), "1/sqrt(5), where 5 is a size of the inputs"),
        (RIGHT / 3, "1/3, where 3 is a size of the inputs"),
        (RIGHT * 1.7, "multiplied by 1.7:"),
        (RIGHT + np.array([[1.0], [-2.0], [0.5]]), "shifted by a constant of its own in each row"),
        (RIGHT[[2, 0, 1]], "right rows in another order"),
        (RIGHT[:, [1, 0, 3, 2]], "right columns in another order"),
    ],
)
def test_a_wrong_answer_is_told_how_it_relates_to_the_right_one(actual, says):
    assert says in _told(actual)


@pytest.mark.parametrize(
    "actual",
    [
        RNG.normal(size=(3, 4)),  # unrelated numbers
        -RIGHT + 1e-3 * RNG.normal(size=(3, 4)),  # nearly negated: the evidence does not fit
        np.zeros((3, 4)),
        RIGHT,  # right: nothing to tell
    ],
)
def test_no_relation_is_named_when_the_evidence_does_not_fit(actual):
    assert _told(actual) is None


def test_a_tuple_names_the_item_that_is_off():
    told = relations.describe(
        (RIGHT, -RIGHT), (RIGHT, RIGHT), ARGS, rtol=1e-6, atol=1e-9, names=("Q", "K")
    )
    assert told == "K is the right answer with its sign flipped: check the sign."


def _result(outcome=Outcome.FAILED):
    return Result(
        name="p: random shapes", part="p", score=0.0, max_score=1.0, outcome=outcome, output="wrong"
    )


def test_a_function_right_on_square_inputs_only_is_told_so():
    ledger = Ledger(frozenset())
    ledger.judged["f"] = [(True, True), (True, True), (False, False), (False, False)]
    (told,) = counted([_result()], [{"f"}], ledger)
    assert told.output.startswith("wrong. It is right on square inputs only")


def test_a_function_wrong_on_a_square_input_too_is_not_told_square_only():
    ledger = Ledger(frozenset())
    ledger.judged["f"] = [(True, True), (True, False), (False, False)]
    (told,) = counted([_result()], [{"f"}], ledger)
    assert told.output == "wrong"
