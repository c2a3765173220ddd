"""A results file's text is strict_json(to_json()) byte for byte, however it is put together, and
the result read back from its pieces is the result reading the file gives."""

import dataclasses
import os

import pytest

from qkv.results import records as results
from qkv.results.outcomes import Outcome
from qkv.results.records import StudentResult
from qkv.results.records import TestResult as Check  # not collected as a test class

CHECK = Check("project: shapes", "project", 1.0, 2.0, Outcome.PASSED)
NAN, INF = float("nan"), float("inf")


def _tricky():
    """Results whose numbers are equal but written differently, not finite, or in odd places."""
    same = dataclasses.replace
    yield StudentResult("empty", (), ("project",), status="could not be read")
    yield StudentResult(
        "numbers",
        (
            CHECK,
            same(CHECK, score=1),
            same(CHECK, score=True),
            same(CHECK, score=-0.0),
            same(CHECK, score=0.0),
            same(CHECK, outcome="passed"),
        ),
        ("project", "quiz"),
    )
    yield StudentResult(
        "not-finite", (same(CHECK, score=NAN), same(CHECK, max_score=INF), CHECK), ("project",)
    )
    yield StudentResult(
        "nan-extra",
        (CHECK,),
        ("project",),
        recorded={"m": [1.0, NAN]},
        extra={"inputs": {"x": NAN}},
    )
    yield StudentResult(
        "lookalike",
        (CHECK, same(CHECK, output='"tests":[] é \x00 </script>')),
        ("project", "quiz"),
        status='"tests":[],"visibility":"x"}',
        extra={"tests": [], "zz": {"tests": []}},
    )


@pytest.mark.parametrize("result", list(_tricky()), ids=lambda r: r.student)
def test_the_text_is_strict_json_and_reads_back_as_the_file_would(result):
    for _ in range(2):  # the second time from the remembered checks
        written = results.encode(result)
        assert written.text == results.strict_json(result.to_json()) + "\n"
        assert repr(written.read_back()) == repr(results.decode(written.text))


def test_write_leaves_the_whole_file_and_no_temporary_one(tmp_path):
    result = StudentResult("eve", (CHECK,) * 3, ("project",))
    written = results.write(result, tmp_path)
    path = results.path_for(tmp_path, "eve")
    assert path.read_text(encoding="utf-8") == written.text
    assert results.read(path) == written.read_back() == results.decode(written.text)
    assert os.listdir(path.parent) == ["eve.json"]
