"""A catalogued mistake is named only where every value the student's function returned fits it.

Graded end to end: a check whose wrong value matches a mistake on its own case keeps the name only
if that mistake also gives what the student returned on every other call of the function.
"""

import json

import pytest

from course_content import CONTENT, COURSE
from qkv.course import layout
from qkv.grade.batch import grade
from qkv.validate import synthetic

ROW_SHIFT = (
    "    shifted = S - S.max(axis=-1, keepdims=True)  # same shape as S, each row's max is 0\n"
)
# Subtracts the whole matrix's maximum on a matrix, as the catalogued mistake does, but leaves a
# single row unnormalised, which that mistake does not: the evidence does not fit the name.
HYBRID = "    if S.ndim == 1:\n        return np.exp(S - S.max())\n    shifted = S - S.max()\n"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("evidence")
    sources = synthetic.class_sources(CONTENT)
    assert ROW_SHIFT in CONTENT.reference_source
    chosen = {
        "global_max": sources["mistake_softmax_global_max"],
        "temperature": sources["mistake_softmax_temperature"],
        "hybrid": CONTENT.reference_source.replace(ROW_SHIFT, HYBRID),
    }
    for student, source in chosen.items():
        (root / "subs" / student).mkdir(parents=True)
        (root / "subs" / student / layout.code_file(COURSE.assignment("attention"))).write_text(
            source
        )
    grade(COURSE, root / "subs", assignment="attention", out=root / "out", jobs=1, progress=False)
    return {
        student: json.loads((root / "out" / "results" / f"{student}.json").read_text())["tests"]
        for student in chosen
    }


def _named(tests, part: str) -> dict[str, str | None]:
    return {t["name"]: t["extra_data"]["mistake"] for t in tests if t["extra_data"]["part"] == part}


def test_the_mistake_itself_is_still_named(graded):
    assert "softmax_global_max" in _named(graded["global_max"], "softmax").values()


def test_an_error_that_agrees_with_a_mistake_on_one_case_only_is_not_given_its_name(graded):
    message = CONTENT.catalogue.by_id("softmax_global_max").message
    softmax = [t for t in graded["hybrid"] if t["extra_data"]["part"] == "softmax"]
    assert any(t["score"] < t["max_score"] for t in softmax)
    assert "softmax_global_max" not in _named(graded["hybrid"], "softmax").values()
    assert not any(message in t["output"] for t in softmax)


def test_a_callee_s_mistake_is_not_named_as_the_callers_and_the_callee_is_pointed_at(graded):
    """A softmax with a temperature makes attend look like scores divided by d_k on one case."""
    attend = [t for t in graded["temperature"] if t["extra_data"]["part"] == "attend"]
    assert "attend_scaled_dk" not in _named(graded["temperature"], "attend").values()
    failed = [t for t in attend if t["score"] < t["max_score"]]
    assert failed and all("softmax() fails on its own" in t["output"] for t in failed)
