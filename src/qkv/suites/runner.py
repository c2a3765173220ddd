"""The pytest plugin that runs the hidden suites over a chunk of students and collects points.

pytest collects the suite files (one file per part, `part` and `weight` markers on the tests);
the plugin then takes over the run loop: for each student in turn it calls every collected test
with the values it asks for (`expect`, `rng`, `fx`, `ref`, `n_cases`), all bound to that student,
and reports one pytest result per student and test. A grading run collects the suites once per
process and then grades each student in two passes (see calls.py): a planning pass that learns
every call the tests will make, run in the student's worker in one exchange, and the judging pass.
Points come from course.yaml: a part's points are shared among its tests by weight; a test scores
all its share or nothing, so a part earns partial credit by the checks it passes.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field

import numpy as np

from qkv.course import layout, seeds
from qkv.errors import QkvError
from qkv.intake.submissions import Submission, with_files
from qkv.results.outcomes import Outcome
from qkv.results.records import StudentResult, TestResult
from qkv.sandbox.host import Sandbox
from qkv.suites.calls import Planned, PlanningExpect, ReferenceMemo, StudentCalls, planning_call
from qkv.suites.collect import plain_items
from qkv.suites.expect import CheckFailed, Expect, StudentProblem

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


@dataclass
class GradingContext:
    """Everything trusted that grading needs; built once per grading process."""

    course: object
    assignment: object
    content: object  # qkv.content.loader.Content: the reference, the catalogue, the example
    sandbox: Sandbox
    extra_tests: object = None  # extra_tests(submission) -> list[TestResult], e.g. the quiz
    tests: list | None = (
        None  # the collected suite tests (SuiteTest), once collected in this process
    )


@dataclass(frozen=True)
class SuiteTest:
    """One collected suite test: its function, part, weight and points."""

    item: object
    part: str
    name: str  # "<part>: <what the test checks>"
    max_score: float


@dataclass
class _StudentRun:
    """One student's grading in progress."""

    sub: Submission
    calls: StudentCalls | None = None
    recorded: dict = field(default_factory=dict)  # what the suites recorded for the feedback page
    shared: dict = field(default_factory=dict)  # calls several checks share (Expect.call_shared)
    early: object = (
        None  # a worker started before the tests were planned, until the first call takes it
    )
    rngs: dict = field(
        default_factory=dict
    )  # test name -> its generator's seeded state (seeds.suite_state)
    replays: list = field(
        default_factory=list
    )  # per test: (first planned call, end, what it recorded) or None


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


class SuiteRun:
    """Grades one student after another with the collected suite tests."""

    def __init__(
        self, ctx: GradingContext, tests: list[SuiteTest], errors: list[str], *, report=None
    ):
        self.ctx = ctx
        self.tests = tests
        self.errors = errors  # grader errors met: bugs in the suites, not the students' doing
        self.report = report  # report(test, student, result), e.g. to pytest
        self.memo = ReferenceMemo(ctx.content.reference, ctx.content.functions)
        course, content = ctx.course, ctx.content
        # What every student's tests ask for alike, worked out once: each test's fixtures (and its
        # parameters), the values that are the same for everyone, and Expect's settings.
        self._asks = {
            id(t): (
                t.item._fixtureinfo.argnames,
                dict(getattr(getattr(t.item, "callspec", None), "params", {})),
            )
            for t in tests
        }
        self._same_for_all = {
            "fx": content.example,
            "ref": content.reference,
            "cases": content.cases,
            "n_cases": ctx.assignment.random_cases,
        }
        self._timeouts = ctx.assignment.call_timeouts()
        self._settings = {
            "rtol": course.tolerance.rtol,
            "atol": course.tolerance.atol,
            "show_inputs": course.feedback.show_case_inputs,
            "expected": self.memo,
        }
        # The planning run of a test that draws nothing for its student (the worked example, fixed
        # cases): its calls and what it recorded, the same for every student (see _plan).
        self._same_plans: dict = {}
        self._generators: dict = {}  # test name -> the generator its student's cases are drawn from

    def grade(self, sub: Submission) -> StudentResult:
        # Read once, before any test: the code and the quiz answers (a file that changes while it
        # is graded cannot make two tests see two different submissions).
        sub = with_files(self.ctx.course, self.ctx.assignment, sub)
        run = _StudentRun(sub)
        if not (
            sub.problem or sub.files is None
        ):  # the child loads the file while the tests are planned
            try:
                run.early = self.ctx.sandbox.open(
                    sub.files,
                    entry=layout.code_file(self.ctx.assignment),
                    wait=False,
                    timeouts=self._timeouts,
                )
            except Exception:
                run.early = None
        # The checks compute with what the student returned (trained weights that overflow, say): numpy's
        # warnings about it would only be noise on the grader's terminal.
        with np.errstate(all="ignore"):
            run.calls = StudentCalls(lambda: self._open(run), self._plan(run))
            if (
                not run.calls.planned and run.early is not None
            ):  # nothing to ask of it: as if never started
                run.early.close(wait=False)
                run.early = None
            results = [
                self._run_test(run, test, replay) for test, replay in zip(self.tests, run.replays)
            ]
        result = self._finish(run, results)
        run.calls = None  # its opener refers to run: now its calls and cases go at once, not at a collection
        return result

    def _plan(self, run: _StudentRun) -> list:
        """Every call the tests make of a student who answers as the reference does.

        Also notes, per test, which planned calls it made and what it recorded, when its run went to
        the end (it passes, answered so) sharing no call with another test: if each of those calls
        returns exactly the reference's answer, the judging pass would run the same code on the same
        values to the same end, so the test passes without being run again (see `_run_test`)."""
        planned: list = []
        run.replays = [None] * len(self.tests)
        if run.sub.problem or run.sub.files is None:
            return planned
        shared: dict = {}
        for i, test in enumerate(self.tests):
            start, recorded = len(planned), {}
            if (
                not shared and i in self._same_plans
            ):  # planned for an earlier student: the same for this one
                calls, recorded = self._same_plans[i]
                planned += [
                    Planned(p.part, p.function, p.args, answer=p.answer, answered=p.answered)
                    for p in calls
                ]
                if recorded is not None:
                    run.replays[i] = (start, len(planned), dict(recorded))
                continue
            expect = self._expect(
                planning_call(self.memo, planned, test.part), recorded, shared, PlanningExpect
            )
            try:
                test.item.obj(**self._values(run, test, expect))
            except Exception:
                recorded = None
            if not shared:
                if recorded is not None:
                    run.replays[i] = (start, len(planned), recorded)
                if "rng" not in self._asks[id(test)][0]:  # nothing in it is drawn for this student
                    self._same_plans[i] = (tuple(planned[start:]), recorded)
        return planned

    def _values(self, run: _StudentRun, test: SuiteTest, expect: Expect) -> dict:
        names, params = self._asks[id(test)]
        values = {}
        for name in names:
            if name in params:
                values[name] = params[name]
            elif name == "expect":
                values[name] = expect
            elif name == "rng":
                values[name] = self._rng(run, test)
            else:
                values[name] = self._same_for_all[name]
        return values

    def _rng(self, run: _StudentRun, test: SuiteTest):
        """The student's generator for this test, put in its seeded state (seeds.suite_state) once for
        the planning pass and again for the judging pass, which must draw what the planning pass
        drew. One generator per test serves every student in turn."""
        name = test.item.originalname
        kept = run.rngs.get(name)
        if kept is None:
            kept = run.rngs[name] = seeds.suite_state(
                self.ctx.course.seed, self.ctx.assignment.id, run.sub.student, name
            )
        rng = self._generators[name] = seeds.suite_rng(kept, self._generators.get(name))
        return rng

    def _expect(self, call, recorded: dict, shared: dict, kind=Expect) -> Expect:
        return kind(call, self.ctx.content, recorded=recorded, shared=shared, **self._settings)

    def _run_test(self, run: _StudentRun, test: SuiteTest, replay=None) -> TestResult:
        visibility = self.ctx.course.feedback.visibility
        base = {
            "name": test.name,
            "part": test.part,
            "max_score": test.max_score,
            "visibility": visibility,
        }
        expect = self._expect(
            lambda fn, args: run.calls.call(test.part, fn, args), run.recorded, run.shared
        )
        try:
            if replay is not None and run.calls.returned_as_planned(replay[0], replay[1]):
                run.recorded.update(replay[2])  # its run would be the planning run: it passes
            else:
                test.item.obj(**self._values(run, test, expect))
            result = TestResult(score=test.max_score, outcome=Outcome.PASSED, **base)
        except CheckFailed as e:
            result = TestResult(
                score=0.0, outcome=Outcome.FAILED, output=e.message, mistake=e.mistake, **base
            )
        except StudentProblem as e:
            result = TestResult(score=0.0, outcome=e.outcome, output=e.message, **base)
        except Exception as e:  # a bug in a suite or in the grader, never the student's doing
            self.errors.append(f"{test.item.nodeid} for {run.sub.student}: {type(e).__name__}: {e}")
            result = TestResult(
                score=0.0,
                outcome=Outcome.GRADER_ERROR,
                output=(
                    f"the grader failed on this check ({type(e).__name__}); tell your instructor"
                ),
                **base,
            )
        if self.report is not None:
            self.report(test, run.sub.student, result)
        return result

    # -- the student's worker --------------------------------------------------------------------

    def _open(self, run: _StudentRun):
        """(session, None), or (None, (outcome, message)) when the submission cannot be loaded."""
        if run.sub.problem or run.sub.files is None:  # with_files recorded the problem
            return None, (Outcome.UNGRADABLE, run.sub.problem or "no code to grade")
        session, run.early = run.early, None
        if session is None:
            session = self.ctx.sandbox.open(
                run.sub.files, entry=layout.code_file(self.ctx.assignment), timeouts=self._timeouts
            )
        load = session.load
        if not load.ok:
            session.close()
            text = session.output.text()
            if text:
                run.calls.output.append(text)
            return None, (Outcome.of_load(load.reason), load.message)
        return session, None

    def _chain_hints(self, tests: list[TestResult]) -> list[TestResult]:
        """A failing chain function whose mistake is unnamed is told which of its callees fail on their own."""
        catalogue = self.ctx.content.catalogue
        function_of = {p.id: p.function for p in self.ctx.assignment.parts}
        failing = {function_of[t.part] for t in tests if t.outcome != Outcome.PASSED}
        hints = {f: catalogue.chain_hint(f, failing) for f in catalogue.chain}
        return [
            dataclasses.replace(t, output=t.output + hints[function_of[t.part]])
            if hints.get(function_of[t.part]) and t.outcome == Outcome.FAILED and not t.mistake
            else t
            for t in tests
        ]

    def _finish(self, run: _StudentRun, tests: list[TestResult]) -> StudentResult:
        run.calls.close_session(wait=False)  # reaped while this student's results are put together
        if run.early is not None:  # started for planned calls the tests did not make in the end
            run.early.close(wait=False)
            run.early = None
        tests = self._chain_hints(tests)
        columns = [p.id for p in self.ctx.assignment.parts]
        if self.ctx.extra_tests is not None:
            extra = self.ctx.extra_tests(run.sub)
            tests = tests + list(extra)
            columns += sorted({t.part for t in extra} - set(columns))
        failure = run.calls.load_failure
        status = f"ungradable: {failure[1]}" if failure else "graded"
        return StudentResult(
            run.sub.student,
            tuple(tests),
            tuple(columns),
            status,
            "\n".join(run.calls.output)[: self.ctx.course.limits.max_output_kb * 1024],
            recorded=run.recorded,
            extra=dict(run.sub.record),
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
    """Grade a chunk of submissions; on_result(StudentResult) is called as each student finishes.

    Returns the grader errors met (bugs in the suites, not the students' doing).
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
