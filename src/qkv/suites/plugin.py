"""The pytest side of the hidden suites: collecting them with their points, and the plugin.

pytest collects the suite files (one file per part, `part` and `weight` markers on the tests);
the plugin then takes over the run loop: for each student in turn it calls every collected test
with the values it asks for (`expect`, `rng`, `fx`, `ref`, `n_cases`), all bound to that student,
and reports one pytest result per student and test.
"""

from __future__ import annotations

import sys

from qkv.errors import QkvError
from qkv.intake.submissions import Submission
from qkv.results.outcomes import Outcome
from qkv.results.records import TestResult
from qkv.suites.collect import plain_items
from qkv.suites.runner import GradingContext, SuiteRun, SuiteTest

FIXTURES = ("expect", "rng", "fx", "ref", "cases", "n_cases")  # what a suite test may ask for
PYTEST_ARGS = [
    "--disable-plugin-autoload",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:logging",
    "-p",
    "no:warnings",
    "-p",
    "no:faulthandler",
    "-p",
    "no:doctest",
    "-p",
    "no:junitxml",
    "-p",
    "no:pastebin",
    "-p",
    "no:stepwise",
    "-p",
    "no:unraisableexception",
    "-p",
    "no:threadexception",
    "--capture=no",
    "--import-mode=importlib",
    "-c",
    "/dev/null",
    "-o",
    "python_files=test_*.py",
]


def readable(item) -> str:
    """'test_scores_near_1000_stay_finite' -> 'scores near 1000 stay finite' (plus any parameters)."""
    name = item.originalname.removeprefix("test_").replace("_", " ")
    params = getattr(getattr(item, "callspec", None), "id", "")
    return f"{name} [{params}]" if params else name


def _marker(item, name: str, default=None):
    marker = item.get_closest_marker(name)
    return marker.args[0] if marker else default


def suite_tests(assignment, items) -> list[SuiteTest]:
    """The collected items with their parts and points (a part's points shared by weight)."""
    weights: dict[str, float] = {}
    for item in items:
        part = _marker(item, "part")
        if part is None:
            raise QkvError(f"{item.nodeid}: suite test without a part marker")
        weights[part] = weights.get(part, 0.0) + float(_marker(item, "weight", 1))
    return [
        SuiteTest(
            item,
            _marker(item, "part"),
            f"{_marker(item, 'part')}: {readable(item)}",
            assignment.part(_marker(item, "part")).points
            * float(_marker(item, "weight", 1))
            / weights[_marker(item, "part")],
        )
        for item in items
    ]


class SuitePlugin:
    def __init__(self, ctx: GradingContext, submissions: list[Submission], on_result):
        self.ctx = ctx
        self.submissions = submissions
        self.on_result = on_result
        self.tests: list[SuiteTest] = []
        self.errors: list[str] = []

    def pytest_configure(self, config):
        config.addinivalue_line("markers", "part(id): the course.yaml part a suite test belongs to")
        config.addinivalue_line(
            "markers", "weight(w): the test's share of its part's points (default 1)"
        )

    def pytest_collection_modifyitems(self, session, config, items):
        """Keep the collected items as suite tests, with their parts and points.

        Args:
            session: pytest's session (unused).
            config: pytest's config (unused).
            items: the test items pytest collected from the assignment's suites.
        """
        self.tests += suite_tests(self.ctx.assignment, items)

    # -- the run loop: students outside, tests inside ----------------------------------------------

    def pytest_runtestloop(self, session):
        if session.config.option.collectonly:
            return None
        grader = SuiteRun(self.ctx, self.tests, self.errors, report=_logreport)
        for sub in self.submissions:
            self.on_result(grader.grade(sub))
        return True


def _logreport(test: SuiteTest, student: str, result: TestResult) -> None:
    from _pytest.reports import TestReport  # noqa: PLC0415 - pytest is loaded only where it runs

    test.item.ihook.pytest_runtest_logreport(
        report=TestReport(
            f"{test.item.nodeid}[{student}]",
            test.item.location,
            {},
            "passed" if result.outcome == Outcome.PASSED else "failed",
            None if result.outcome == Outcome.PASSED else f"{result.outcome}: {result.output}",
            "call",
            user_properties=[("score", result.score), ("max_score", result.max_score)],
        )
    )


def collect(ctx: GradingContext) -> list[SuiteTest]:
    """The suite tests of the assignment, collected once per grading process (by pytest, unless the
    suites are plain: see collect.py)."""
    if ctx.tests is None:
        content = ctx.content
        items = plain_items(content.suites_dir, content.suite_files(), set(FIXTURES))
        if items is not None:
            ctx.tests = suite_tests(ctx.assignment, items)
            return ctx.tests
        import pytest  # noqa: PLC0415 - its imports cost more than grading a student: only collecting needs them

        plugin = SuitePlugin(ctx, [], None)
        code = pytest.main(
            [
                *PYTEST_ARGS,
                "-p",
                "no:terminal",
                "--collect-only",
                "--rootdir",
                str(content.suites_dir),
                *content.suite_files(),
            ],
            plugins=[plugin],
        )
        _forget_modules_under(content.suites_dir)
        if code != 0 or not plugin.tests:
            raise RuntimeError(f"the hidden suites did not run (pytest exit code {int(code)})")
        ctx.tests = plugin.tests
    return ctx.tests


def run_suites(ctx: GradingContext, submissions: list[Submission], on_result) -> list[str]:
    """Grade a chunk of submissions with the collected suites.

    Args:
        ctx: the grading process's context.
        submissions: the chunk.
        on_result: called with each StudentResult as its student finishes.

    Returns:
        The grader errors met (bugs in the suites, not the students' doing).
    """
    if not submissions:
        return []
    errors: list[str] = []
    grader = SuiteRun(ctx, collect(ctx), errors)
    for sub in submissions:
        on_result(grader.grade(sub))
    return errors


def _forget_modules_under(folder) -> None:
    """Drop the suite modules pytest imported (as test_<part>): another assignment's suites, or a
    test of this package, may use the same names in this process."""
    root = str(folder)
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", "") or "").startswith(root):
            del sys.modules[name]
