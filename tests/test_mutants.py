"""`qkv validate --mutants`: mutants of the reference's syntax tree, equivalent ones set aside, the
rest graded in the sandbox; the suites must catch at least 95 % of them."""

import ast

import numpy as np
import pytest

from course_content import CONTENT, COURSE
from qkv.cli import main
from qkv.content.reference import module_from_source
from qkv.validate import mutants

SOURCE = '''import numpy as np


def scale(x, w):
    """Doc."""
    y = x * w  # a product
    return np.abs(y).sum(axis=-1) + 0 * y.sum(axis=-1)
'''


def test_the_attention_reference_gives_over_a_hundred_mutants_of_every_kind():
    found = mutants.generate(CONTENT.reference_source, CONTENT.functions)
    changes = " ".join(m.change for m in found)
    assert len(found) >= 100
    assert len({m.source for m in found}) == len(found)
    for m in found:
        ast.parse(m.source)
    assert "@ K.T` -> `Q @ K`" in changes  # a transpose dropped
    assert "axis=0" in changes and "axis=None" in changes  # an axis changed
    assert "` -> `S + " in changes  # an operator swapped
    assert "score(K, Q)" in changes  # arguments reordered
    assert "return (Q, V, K)" not in changes and "(Q, V, K)" in changes  # returned items reordered
    assert {m.function for m in found} == set(CONTENT.functions)


def test_a_mutant_that_returns_what_the_reference_returns_is_equivalent():
    class Content:  # only what equivalent() asks of an assignment
        functions = ("scale",)

    reference = module_from_source(SOURCE, "ref")
    inputs = {"scale": [(np.array([[1.0, -2.0]]), np.array([[3.0, 4.0]]))]}
    by_change = {m.change: m for m in mutants.generate(SOURCE, ("scale",))}
    same = (
        by_change["`0` -> `-0`"]
        if "`0` -> `-0`" in by_change
        else by_change["`0 * y.sum(axis=-1)` -> `0`"]
    )
    assert mutants.equivalent(Content, reference, same, inputs, COURSE.tolerance)
    assert not mutants.equivalent(
        Content, reference, by_change["`x * w` -> `x / w`"], inputs, COURSE.tolerance
    )
    assert all(m.line >= 6 for m in by_change.values())  # never the docstring


# masked's sizes are ints and its masks booleans: its mutants are called with them as they are.
@pytest.mark.parametrize("assignment", ["attention", "masked"])
def test_validate_mutants_catches_at_least_95_percent_of_over_100(capsys, course, assignment):
    code = main(
        [
            "validate",
            "--mutants",
            "--course",
            str(course.root),
            "--assignment",
            assignment,
            "--jobs",
            "2",
        ]
    )
    lines = capsys.readouterr().out.strip().splitlines()
    assert code == 0
    last = lines[-1].split()
    assert lines[-1].startswith("mutation score: ") and lines[-1].endswith("%)")
    caught, total, share = int(last[2]), int(last[4]), float(last[-2].strip("("))
    assert total >= 100 and share >= 95.0 and abs(100 * caught / total - share) < 0.1
    assert len([line for line in lines if line.startswith("survived  ")]) == total - caught
