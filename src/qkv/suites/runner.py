"""Grading one student after another with the collected suite tests, in two passes.

A planning pass learns every call the tests will make, run in the student's child in one exchange
(see calls.py), and the judging pass then checks the answers. Points come from course.yaml: a part's
points are shared among its tests by weight; a test scores all its share or nothing, so a part
earns partial credit by the checks it passes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from qkv.course import layout, seeds
from qkv.intake.submissions import Submission, with_files
from qkv.results.outcomes import Outcome
from qkv.results.records import StudentResult, TestResult
from qkv.sandbox.host import Sandbox
from qkv.suites import evidence
from qkv.suites.calls import Planned, PlanningExpect, ReferenceMemo, StudentCalls, planning_call
from qkv.suites.expect import CheckFailed, Expect, StudentProblem
from qkv.suites.ledger import Ledger, TestCalls, counted, public_keys

if TYPE_CHECKING:
    from qkv.content.loader import Content
    from qkv.course.config import Assignment, Course
    from qkv.sandbox.session import Session


@dataclass
class GradingContext:
    """Everything trusted that grading needs; built once per grading process."""

    course: Course
    assignment: Assignment
    content: Content  # the reference, the catalogue, the example
    sandbox: Sandbox | None  # None until the grading process has its own
    # extra_tests(submission): the tests graded outside the suites, e.g. the quiz.
    extra_tests: Callable[[Submission], list[TestResult]] | None = None
    tests: list[SuiteTest] | None = None  # the collected suite tests, once collected here


@dataclass(frozen=True)
class SuiteTest:
    """One collected suite test: its function, part, weight and points."""

    item: Any  # a pytest Item, or a collect.PlainItem: what the runner reads of either
    part: str
    name: str  # "<part>: <what the test checks>"
    max_score: float


@dataclass
class _StudentRun:
    """One student's grading in progress."""

    sub: Submission
    calls: StudentCalls | None = None
    # What the suites recorded for the feedback page.
    recorded: dict[str, Any] = field(default_factory=dict)
    # Calls several checks share (Expect.call_shared).
    shared: dict[Any, Any] = field(default_factory=dict)
    # A child started before the tests were planned, until the first call takes it.
    early: Session | None = None
    # Test name -> its generator's seeded state (seeds.suite_state).
    rngs: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Per test: (first planned call, end, what it recorded, what it called) or None.
    replays: list[Any] = field(default_factory=list)
    # Which functions were right on inputs the release lacks.
    ledger: Ledger | None = None
    # Per test judged: the functions it called.
    called: list[set[str]] = field(default_factory=list)

    @property
    def live(self) -> StudentCalls:
        """The student's calls, made once their grading has begun."""
        assert self.calls is not None, "the calls are made before the tests run"
        return self.calls


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
        self._public = public_keys(content)

    def grade(self, sub: Submission) -> StudentResult:
        # Read once, before any test: the code and the quiz answers (a file that changes while it
        # is graded cannot make two tests see two different submissions).
        sub = with_files(self.ctx.course, self.ctx.assignment, sub)
        run = _StudentRun(sub, ledger=Ledger(self._public))
        if not (
            sub.problem or sub.files is None
        ):  # the child loads the file while the tests are planned
            try:
                run.early = self._sandbox.open(
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
        assert run.ledger is not None, "grade() gives each student a ledger"
        tolerance = self.ctx.course.tolerance
        results = evidence.named_where_it_fits(
            results,
            run.ledger,
            run.live.returned,
            self.ctx.content,
            rtol=tolerance.rtol,
            atol=tolerance.atol,
        )
        results = counted(results, run.called, run.ledger)
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
            start = len(planned)
            recorded: dict[str, Any] | None = {}
            if (
                not shared and i in self._same_plans
            ):  # planned for an earlier student: the same for this one
                calls, recorded, called = self._same_plans[i]
                planned += [
                    Planned(p.part, p.function, p.args, answer=p.answer, answered=p.answered)
                    for p in calls
                ]
                if recorded is not None:
                    run.replays[i] = (start, len(planned), dict(recorded), called)
                continue
            assert recorded is not None
            expect = self._expect(
                planning_call(self.memo, planned, test.part),
                recorded,
                shared,
                PlanningExpect,
                Ledger(self._public),
            )
            try:
                test.item.obj(**self._values(run, test, expect))
            except Exception:
                recorded = None
            if not shared:
                if recorded is not None:
                    run.replays[i] = (start, len(planned), recorded, expect.calls)
                if "rng" not in self._asks[id(test)][0]:  # nothing in it is drawn for this student
                    self._same_plans[i] = (tuple(planned[start:]), recorded, expect.calls)
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

    def _expect(
        self, call, recorded: dict, shared: dict, kind=Expect, ledger=None, check: int = -1
    ) -> Expect:
        return kind(
            call,
            self.ctx.content,
            recorded=recorded,
            shared=shared,
            ledger=ledger,
            check=check,
            **self._settings,
        )

    @property
    def _sandbox(self) -> Sandbox:
        assert self.ctx.sandbox is not None, "a grading process has its sandbox before it grades"
        return self.ctx.sandbox

    def _run_test(self, run: _StudentRun, test: SuiteTest, replay: Any = None) -> TestResult:
        visibility = self.ctx.course.feedback.visibility
        base: dict[str, Any] = {
            "name": test.name,
            "part": test.part,
            "max_score": test.max_score,
            "visibility": visibility,
        }
        expect = self._expect(
            lambda fn, args: run.live.call(test.part, fn, args),
            run.recorded,
            run.shared,
            ledger=run.ledger,
            check=len(run.called),
        )
        called: TestCalls = expect.calls
        try:
            if replay is not None and run.live.returned_as_planned(replay[0], replay[1]):
                run.recorded.update(replay[2])  # its run would be the planning run: it passes
                called = replay[3]  # and every value it returned was the reference's
                assert run.ledger is not None, "grade() gives each student a ledger"
                for function in called.unseen:
                    run.ledger.right(function, len(run.called))
            else:
                test.item.obj(**self._values(run, test, expect))
                expect.settle()
            result = TestResult(score=test.max_score, outcome=Outcome.PASSED, **base)
        except CheckFailed as e:
            result = TestResult(
                score=0.0, outcome=e.outcome, output=e.message, mistake=e.mistake, **base
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
        run.called.append(called.called)
        if self.report is not None:
            self.report(test, run.sub.student, result)
        return result

    # -- the student's child ---------------------------------------------------------------------

    def _open(self, run: _StudentRun):
        """(session, None), or (None, (outcome, message)) when the submission cannot be loaded."""
        if run.sub.problem or run.sub.files is None:  # with_files recorded the problem
            return None, (Outcome.UNGRADABLE, run.sub.problem or "no code to grade")
        session, run.early = run.early, None
        if session is None:
            session = self._sandbox.open(
                run.sub.files, entry=layout.code_file(self.ctx.assignment), timeouts=self._timeouts
            )
        load = session.load
        if not load.ok:
            session.close()
            text = session.output.text()
            if text:
                run.live.output.append(text)
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
            if hints.get(function_of[t.part])
            and t.outcome in (Outcome.FAILED, Outcome.NOT_COUNTED)
            and not t.mistake
            else t
            for t in tests
        ]

    def _finish(self, run: _StudentRun, tests: list[TestResult]) -> StudentResult:
        run.live.close_session(wait=False)  # reaped while this student's results are put together
        if run.early is not None:  # started for planned calls the tests did not make in the end
            run.early.close(wait=False)
            run.early = None
        tests = self._chain_hints(tests)
        columns = [p.id for p in self.ctx.assignment.parts]
        if self.ctx.extra_tests is not None:
            extra = self.ctx.extra_tests(run.sub)
            tests = tests + list(extra)
            columns += sorted({t.part for t in extra} - set(columns))
        failure = run.live.load_failure
        status = f"ungradable: {failure[1]}" if failure else "graded"
        return StudentResult(
            run.sub.student,
            tuple(tests),
            tuple(columns),
            status,
            "\n".join(run.live.output)[: self.ctx.course.limits.max_output_kb * 1024],
            recorded=run.recorded,
            extra=dict(run.sub.record),
        )
