"""A catalogued mistake is named only on evidence that fits it and not the reference."""

import types

import numpy as np

from qkv.content import reference as reference_mod
from qkv.content.mistakes import Catalogue, Mistake
from qkv.shipped.compare import crash_problem


def _reference():
    module = types.ModuleType("ref")
    exec(
        "import numpy as np\n"
        "def heads(X, n_heads):\n"
        "    return tuple(np.split(X, n_heads, axis=1))\n",
        module.__dict__,
    )
    return module


SPLIT_ROWS = Mistake(
    "rows",
    "heads",
    "split the columns, not the rows.",
    "def heads(X, n_heads):\n    return tuple(np.split(X, n_heads, axis=0))\n",
)


def test_an_error_the_reference_raises_too_names_no_mistake():
    ref, catalogue = _reference(), Catalogue((SPLIT_ROWS,), ("heads",))
    X = np.zeros((3, 3))  # 3 columns into 2 heads: the reference raises as the mistake does
    error = "raised ValueError: array split does not result in an equal division"
    assert catalogue.crashes(ref, "heads", [X, 2]) == []
    assert crash_problem(error, catalogue.crashes(ref, "heads", [X, 2])) is None


def test_an_error_only_the_mistake_raises_still_names_it():
    ref, catalogue = _reference(), Catalogue((SPLIT_ROWS,), ("heads",))
    X = np.zeros((3, 4))  # the reference splits 4 columns; the mistake cannot split 3 rows
    crashes = catalogue.crashes(ref, "heads", [X, 2])
    error = "raised ValueError: array split does not result in an equal division (line 3)"
    assert crash_problem(error, crashes) == SPLIT_ROWS.message


REFERENCE = '''\
import numpy as np


def heads(X, n_heads):
    """The columns of X in n_heads blocks."""
    return tuple(np.split(X, n_heads, axis=1))
'''


def _from_source():
    return reference_mod.module_from_source(REFERENCE, "reference")


def test_a_mistake_written_as_an_edit_is_the_reference_with_that_expression_replaced():
    rows = Mistake("rows", "heads", "split the columns.", edit=(("axis=1", "axis=0"),))
    wrong = rows.function(_from_source(), ("heads",))
    assert [h.shape for h in wrong(np.zeros((4, 2)), 2)] == [(2, 2), (2, 2)]
    mutant = rows.mutant_source(REFERENCE)
    assert "np.split(X, n_heads, axis=0)" in mutant and '"""The columns of X' in mutant


def test_a_mistake_written_as_a_wrapper_calls_the_reference():
    reversed_heads = Mistake(
        "reversed",
        "heads",
        "the heads come out in reverse order.",
        "def heads(X, n_heads):\n    return reference_heads(X, n_heads)[::-1]\n",
        wraps=True,
    )
    wrong = reversed_heads.function(_from_source(), ("heads",))
    first, second = wrong(np.arange(4.0)[None, :], 2)
    assert first.tolist() == [[2.0, 3.0]] and second.tolist() == [[0.0, 1.0]]
    assert "def reference_heads(" in reversed_heads.mutant_source(REFERENCE)


def test_an_edit_that_does_not_match_exactly_once_says_so():
    twice = Mistake("n", "heads", "x.", edit=(("n_heads", "2"),))
    try:
        twice.function(_from_source(), ("heads",))
    except ValueError as e:
        assert "'n_heads' is not in heads() exactly once" in str(e)
    else:
        raise AssertionError("the edit should have been refused")
