"""The pytest plugin that runs the hidden suites for a chunk of students and collects points.

Every suite test is parametrised over the chunk's students and the items are regrouped so each
student's tests run together, in one confined worker (a fresh one per part after a crash or a
timeout). Points come from course.yaml: a part's points are shared among its tests by their
`weight` marker; a test scores all its share or nothing, so a part earns partial credit by the
checks it passes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autograder import cases, fixture
from autograder.checks import CheckFailed, Expect, StudentProblem
from autograder.errors import QkvError
from autograder.results import StudentResult, TestResult
from autograder.sandbox import CallResult, Sandbox
from autograder.submission import Submission, read_code

SUITES_DIR = Path(__file__).parent / "suites"
_LOAD_OUTCOME = {"timeout": "timeout", "memory": "memory", "exited": "exited"}


@dataclass
class GradingContext:
    """Everything trusted that grading one chunk needs; built once per grading process."""

    course: object
    assignment: object
    reference: object
    sandbox: Sandbox
    extra_tests: object = None  # extra_tests(submission) -> list[TestResult], e.g. the quiz

    def __post_init__(self):
        self.fixture = fixture.build(self.reference)


@dataclass
class _StudentRun:
    """One student's grading in progress."""

    sub: Submission
    files: dict | None = None
    session: object = None
    load_failure: tuple[str, str] | None = None  # (outcome, message)
    dead_parts: dict = field(default_factory=dict)  # part -> (outcome, message)
    tests: dict = field(default_factory=dict)  # nodeid -> TestResult
    output: list = field(default_factory=list)
    notes: dict = field(default_factory=dict)
    remaining: int = 0

    def close_session(self) -> None:
        if self.session is not None:
            self.session.close()
            text = self.session.output.text()
            if text:
                self.output.append(text)
            self.session = None


def readable(test_name: str) -> str:
    """'test_two_plus_three_scores[alice]' -> 'two plus three scores'."""
    return re.sub(r"\[.*\]$", "", test_name).removeprefix("test_").replace("_", " ")


class SuitePlugin:
    def __init__(self, ctx: GradingContext, submissions: list[Submission], on_result):
        self.ctx = ctx
        self.runs = {s.student: _StudentRun(s) for s in submissions}
        self.order = {s.student: i for i, s in enumerate(submissions)}
        self.on_result = on_result
        self.max_scores: dict[tuple[str, str], float] = {}  # (part, test function) -> max score
        self.errors: list[str] = []

    # -- collection ------------------------------------------------------------------------------

    def pytest_configure(self, config):
        config.addinivalue_line("markers", "part(id): the course.yaml part a suite test belongs to")
        config.addinivalue_line("markers", "weight(w): the test's share of its part's points (default 1)")

    def pytest_generate_tests(self, metafunc):
        if "qkv_student" in metafunc.fixturenames:
            ids = list(self.runs)
            metafunc.parametrize("qkv_student", ids, ids=ids)

    def pytest_collection_modifyitems(self, session, config, items):
        position = {id(item): i for i, item in enumerate(items)}
        items.sort(key=lambda it: (self.order.get(self._student(it), -1), position[id(it)]))
        weights: dict[str, dict[str, float]] = {}
        for item in items:
            weights.setdefault(self._part(item), {})[item.originalname] = self._weight(item)
        for part, tests in weights.items():
            points = self.ctx.assignment.part(part).points
            for name, weight in tests.items():
                self.max_scores[(part, name)] = points * weight / sum(tests.values())
        for item in items:
            self.runs[self._student(item)].remaining += 1

    @staticmethod
    def _student(item) -> str:
        return item.callspec.params["qkv_student"]

    @staticmethod
    def _part(item) -> str:
        marker = item.get_closest_marker("part")
        if marker is None:
            raise QkvError(f"{item.nodeid}: suite test without a part marker")
        return marker.args[0]

    @staticmethod
    def _weight(item) -> float:
        marker = item.get_closest_marker("weight")
        return float(marker.args[0]) if marker else 1.0

    # -- fixtures the suites use -----------------------------------------------------------------

    @pytest.fixture
    def qkv_student(self):
        raise RuntimeError("qkv_student is parametrised by the plugin")

    @pytest.fixture
    def expect(self, qkv_student, request):
        run = self.runs[qkv_student]
        part = self._part(request.node)
        course = self.ctx.course
        exp = Expect(lambda fn, args: self._call(run, part, fn, args), self.ctx.reference,
                     rtol=course.tolerance.rtol, atol=course.tolerance.atol,
                     show_inputs=course.feedback.show_case_inputs)
        exp.notes = run.notes
        return exp

    @pytest.fixture
    def rng(self, qkv_student, request):
        return cases.rng_for(self.ctx.course.seed, self.ctx.assignment.id, qkv_student, request.node.originalname)

    @pytest.fixture
    def fx(self):
        return self.ctx.fixture

    @pytest.fixture
    def ref(self):
        return self.ctx.reference

    @pytest.fixture
    def n_cases(self):
        return self.ctx.assignment.random_cases

    # -- calling the student ---------------------------------------------------------------------

    def _open(self, run: _StudentRun) -> None:
        if run.files is None:
            try:
                run.files = read_code(self.ctx.course, run.sub.code)
            except QkvError as e:
                run.load_failure = ("ungradable", str(e))
                return
        run.session = self.ctx.sandbox.open(run.files)
        load = run.session.load
        if not load.ok:
            run.load_failure = (_LOAD_OUTCOME.get(load.reason, "ungradable"), load.message)
            run.close_session()

    def _call(self, run: _StudentRun, part: str, function: str, args) -> CallResult:
        if run.sub.problem:
            run.load_failure = ("ungradable", run.sub.problem)
        if part in run.dead_parts:
            outcome, message = run.dead_parts[part]
            return CallResult(outcome, message=f"not run: {message} on an earlier check of this part")
        if run.load_failure is None and (run.session is None or run.session.status is not None):
            run.close_session()
            self._open(run)
        if run.load_failure:
            raise StudentProblem(*run.load_failure)
        result = run.session.call(function, args)
        if result.kind in ("timeout", "exited", "invalid"):
            run.dead_parts[part] = (result.kind, result.message)
            run.close_session()
        return result

    # -- results ---------------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem):
        """Run the test and record the student's outcome here, so pytest never formats a traceback
        for an expected failure (that formatting would cost more than the grading itself)."""
        args = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
        try:
            pyfuncitem.obj(**args)
            exc = None
        except (CheckFailed, StudentProblem) as e:
            exc = e
        self.runs[self._student(pyfuncitem)].tests[pyfuncitem.nodeid] = self._result(pyfuncitem, exc)
        return True

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        run = self.runs[self._student(item)]
        if report.failed and item.nodeid not in run.tests:  # a grader bug, in a fixture or a suite
            run.tests[item.nodeid] = self._result(item, call.excinfo.value)

    def _result(self, item, exc: BaseException | None) -> TestResult:
        part = self._part(item)
        max_score = self.max_scores[(part, item.originalname)]
        name = f"{part}: {readable(item.name)}"
        visibility = self.ctx.course.feedback.visibility
        if exc is None:
            return TestResult(name, part, max_score, max_score, "passed", visibility=visibility)
        if isinstance(exc, CheckFailed):
            return TestResult(name, part, 0.0, max_score, "failed", exc.message, exc.mistake, visibility)
        if isinstance(exc, StudentProblem):
            return TestResult(name, part, 0.0, max_score, exc.outcome, exc.message, visibility=visibility)
        self.errors.append(f"{item.nodeid}: {type(exc).__name__}: {exc}")
        return TestResult(name, part, 0.0, max_score, "grader_error",
                          f"the grader failed on this check ({type(exc).__name__}); tell your instructor",
                          visibility=visibility)

    def pytest_runtest_logfinish(self, nodeid, location):
        student = re.search(r"\[([^\]]*)\]$", nodeid).group(1)
        run = self.runs[student]
        run.remaining -= 1
        if run.remaining == 0:
            self._finish(run)

    def _finish(self, run: _StudentRun) -> None:
        run.close_session()
        tests = list(run.tests.values())
        columns = [p.id for p in self.ctx.assignment.parts]
        if self.ctx.extra_tests is not None:
            extra = self.ctx.extra_tests(run.sub)
            tests += extra
            columns += sorted({t.part for t in extra} - set(columns))
        status = "graded"
        if run.load_failure:
            status = f"ungradable: {run.load_failure[1]}"
        result = StudentResult(run.sub.student, tuple(tests), tuple(columns), status,
                               "\n".join(run.output)[: self.ctx.course.limits.max_output_kb * 1024],
                               run.notes.get("fixture_attention"))
        self.on_result(result)
        del self.runs[run.sub.student]


PYTEST_ARGS = ["-p", "no:cacheprovider", "-p", "no:terminal", "-p", "no:logging", "-p", "no:warnings",
               "-p", "no:faulthandler", "-p", "no:doctest", "-p", "no:junitxml", "-p", "no:pastebin",
               "-p", "no:stepwise", "-p", "no:nose", "--capture=no", "--import-mode=importlib",
               "-c", "/dev/null", "-o", "python_files=test_*.py"]


def run_suites(ctx: GradingContext, submissions: list[Submission], on_result) -> list[str]:
    """Grade a chunk of submissions; on_result(StudentResult) is called as each student finishes.

    Returns the grader errors met (bugs in the suites, not the students' doing).
    """
    if not submissions:
        return []
    files = []
    for part in ctx.assignment.parts:
        suite = SUITES_DIR / f"test_{part.id}.py"
        if not suite.is_file():
            raise QkvError(f"part '{part.id}': no hidden suite {suite.name} in autograder/suites")
        files.append(str(suite))
    plugin = SuitePlugin(ctx, submissions, on_result)
    code = pytest.main([*PYTEST_ARGS, "--rootdir", str(SUITES_DIR), *files], plugins=[plugin])
    if code not in (0, 1) or plugin.runs:
        # The suites themselves could not run: a grader bug. Write nothing for these students, so a
        # rerun grades them once it is fixed.
        for run in plugin.runs.values():
            run.close_session()
        raise RuntimeError(f"the hidden suites did not run (pytest exit code {int(code)}); "
                           f"errors: {'; '.join(plugin.errors) or 'none recorded'}")
    return plugin.errors
