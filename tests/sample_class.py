"""A small graded class built by hand, for testing the pages without the grader.

alice has full marks; bob normalised softmax along the wrong axis; carol's file does not parse;
dave's softmax and attend time out; the last student's id and messages carry markup, as untrusted
text may.
"""

from __future__ import annotations

import json
from pathlib import Path

from course_content import CATALOGUE, fixture
from qkv.results import records as results
from qkv.results.records import StudentResult, TestResult

CHECKS = (
    "the 'two plus three' example",
    "random case 1",
    "random case 2",
    "leaves its inputs unchanged",
)
MARKUP_ID = "mallory<b>&'"
MARKUP_TEXT = "<script>alert('x')</script><img src=http://example.invalid/x.png>"

RUN = {
    "isolation": "strong (rlimits, no network, separate process)",
    "versions": {"qkv-kit": "0.1.0", "python": "3.11.7", "numpy": "1.26.4"},
    "course_seed": 20261129,
    "assignment": "attention",
    "duration_s": 12.345,
    "submissions": 6,
    "jobs": 4,
    "skipped": ["notes.txt: not a submission (expected a folder, .py or .ipynb)"],
}


def _part(part: str, points: float, failing: dict[str, tuple]) -> list[TestResult]:
    """One part's checks, all passed except those in `failing`: name -> (outcome, output, mistake)."""
    each = points / len(CHECKS)
    tests = []
    for check in CHECKS:
        outcome, output, mistake = failing.get(check, ("passed", "", None))
        tests.append(
            TestResult(
                f"{part}: {check}",
                part,
                each if outcome == "passed" else 0.0,
                each,
                outcome,
                output,
                mistake,
            )
        )
    return tests


def _quiz(wrong: set[int], points: float) -> list[TestResult]:
    each = points / 2
    return [
        TestResult(
            f"quiz: question {q}",
            "quiz",
            0.0 if q in wrong else each,
            each,
            "failed" if q in wrong else "passed",
            "Softmax of 2.1, 0.3, 2.0 gives 0.48, 0.08, 0.44, not 0.45, 0.10, 0.45."
            if q in wrong
            else "",
        )
        for q in (1, 2)
    ]


def _student(assignment, student: str, failing: dict[str, dict], **kw) -> StudentResult:
    tests = [t for p in assignment.parts for t in _part(p.id, p.points, failing.get(p.id, {}))]
    quiz = kw.pop("quiz", None)
    columns = tuple(p.id for p in assignment.parts)
    if quiz is not None:
        tests += _quiz(quiz, assignment.quiz_points)
        columns += ("quiz",)
    return StudentResult(student, tuple(tests), columns, **kw)


def build(assignment, ref) -> list[StudentResult]:
    fx = fixture.build(ref)
    axis0 = CATALOGUE.by_id("softmax_axis0")
    wrong_axis = ("failed", f"softmax: {axis0.message}", "softmax_axis0")
    rows_off = ("failed", "attend: the rows of A do not sum to 1.", None)
    timed_out = ("timeout", "softmax timed out after 2 s: is there a loop that never ends?", None)
    ungradable = (
        "ungradable",
        "syntax error on line 3: fix it and everything else can be checked.",
        None,
    )
    return [
        _student(assignment, "alice", {}, quiz=set(), recorded={"attention": fx.A.tolist()}),
        _student(
            assignment,
            "bob",
            {
                "softmax": dict.fromkeys(CHECKS[:3], wrong_axis),
                "attend": dict.fromkeys(CHECKS[:3], rows_off),
            },
            quiz={1},
            recorded={"attention": axis0.function(ref, CATALOGUE.functions)(fx.S).tolist()},
        ),
        _student(
            assignment,
            "carol",
            {p.id: dict.fromkeys(CHECKS, ungradable) for p in assignment.parts},
            status="syntax error on line 3",
        ),
        _student(
            assignment,
            "dave",
            {"softmax": {CHECKS[1]: timed_out}, "attend": dict.fromkeys(CHECKS, timed_out)},
            output="starting...\n",
        ),
        _student(
            assignment,
            MARKUP_ID,
            {"score": {CHECKS[0]: ("failed", MARKUP_TEXT, None)}},
            output=MARKUP_TEXT,
            recorded={"attention": [[1, 2], [3]]},
        ),
    ]


def write_class(out: Path, assignment, ref, run: dict | None = RUN) -> list[str]:
    """Write results/<student>.json (and run.json) into `out`; return the student ids."""
    students = build(assignment, ref)
    for r in students:
        results.write(r, out)
    if run is not None:
        (Path(out) / "run.json").write_text(
            json.dumps(run, indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
    return [r.student for r in students]
