"""The suite plugin, tested the way pytest tests plugins: with pytester."""

import pytest

from course_content import CATALOGUE
from qkv.course.config import parse_course
from qkv.intake.submissions import Submission
from qkv.sandbox.host import Sandbox
from qkv.suites.plugin import SuitePlugin
from qkv.suites.runner import GradingContext

pytest_plugins = ["pytester"]

COURSE = {
    "name": "t",
    "seed": 1,
    "assignments": [
        {
            "id": "a",
            "title": "t",
            "source": "ref.py",
            "parts": [{"id": "softmax", "function": "softmax", "points": 10}],
        }
    ],
}

SUITE = """
import numpy as np
import pytest

pytestmark = pytest.mark.part("softmax")


@pytest.mark.weight(3)
def test_fixture(expect, fx):
    expect.same("softmax", fx.S, hidden=False)


def test_random(expect, rng):
    expect.same("softmax", rng.normal(size=(2, 3)))
"""


@pytest.fixture
def ctx(content):
    with Sandbox(parse_course(COURSE).limits) as sandbox:
        course = parse_course(COURSE)
        yield GradingContext(course, course.assignment("a"), content, sandbox)


def submission(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return Submission(name, path, None)


def test_one_report_per_student_and_test_with_weighted_points(
    pytester, tmp_path, ctx, reference_source
):

    subs = [
        submission(tmp_path, "good", reference_source),
        submission(
            tmp_path, "axis0", CATALOGUE.by_id("softmax_axis0").mutant_source(reference_source)
        ),
    ]
    got = {}
    pytester.makepyfile(test_softmax=SUITE)
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        plugins=[SuitePlugin(ctx, subs, lambda r: got.update({r.student: r}))],
    )
    result.assert_outcomes(passed=2, failed=2)
    assert got["good"].total == 10
    assert got["axis0"].total == 0
    fixture_test = next(t for t in got["axis0"].tests if t.name == "softmax: fixture")
    assert fixture_test.max_score == pytest.approx(7.5) and fixture_test.mistake == "softmax_axis0"


def test_a_suite_test_without_a_part_marker_is_an_error(pytester, tmp_path, ctx, reference_source):
    pytester.makepyfile(test_x="def test_x(expect):\n    pass\n")
    result = pytester.runpytest(
        "-p", "no:cacheprovider", plugins=[SuitePlugin(ctx, [], lambda r: None)]
    )
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*without a part marker*"])


def test_a_bug_in_a_suite_is_a_grader_error_not_the_students_fault(
    pytester, tmp_path, ctx, reference_source
):
    pytester.makepyfile(
        test_softmax="import pytest\npytestmark = pytest.mark.part('softmax')\n"
        "def test_broken(expect):\n    raise ZeroDivisionError('oops')\n"
    )
    got = []
    plugin = SuitePlugin(ctx, [submission(tmp_path, "good", reference_source)], got.append)
    pytester.runpytest("-p", "no:cacheprovider", plugins=[plugin])
    assert (
        got[0].tests[0].outcome == "grader_error"
        and "tell your instructor" in got[0].tests[0].output
    )
    assert plugin.errors and "ZeroDivisionError" in plugin.errors[0]
