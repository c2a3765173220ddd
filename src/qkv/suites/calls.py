"""One student's calls into the sandbox: planned before they are judged, run in one exchange.

Grading a student takes two passes over the suite tests. The planning pass runs every test with
calls that answer as the reference would (a correct student), so each test draws its cases and
asks for every call it would make; the child then runs all of them in one batch. The judging
pass runs the tests again, for real: each call it makes is served from the batch when it is the
planned one (same function, same inputs bit for bit), and made live otherwise. Results are what
call-by-call grading gives: a call the judging pass never makes (planned after a check that
failed) is never judged, and whatever it did to the child (a crash, an endless loop) costs
nothing but a fresh child for the calls after it.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from qkv.content.mistakes import inputs_key
from qkv.sandbox.replies import CallResult
from qkv.shipped.compare import copy_value, identical
from qkv.suites.expect import Expect, StudentProblem

if TYPE_CHECKING:
    from qkv.sandbox.session import Session

ENDING = ("timeout", "exited", "invalid")  # results after which a child is gone
# The reference's results kept: those that took long to compute (a whole training run on the worked
# example, asked for by every student), and a few of the rest (the same student's random cases, asked
# for again while they are judged). Entries made and dropped student after student scatter over the
# memory, which a process then keeps: the fewer, the flatter its size.
MEMO_SIZE = 256
CHEAP_SIZE = 32
DEAR = 0.001  # seconds: a result that took longer is kept among the MEMO_SIZE
_NOT_KEPT = object()


@dataclass
class Planned:
    """A call the planning pass asked for, and (once the batch ran) what it came to."""

    part: str
    function: str
    args: list  # plain values, as Expect sends them
    result: CallResult | None = None
    answer: object = None  # what the reference answered when the call was planned
    answered: bool = False

    def matches(self, function: str, args) -> bool:
        return (
            function == self.function
            and len(args) == len(self.args)
            and all(map(identical, args, self.args))
        )


class ReferenceMemo:
    """The reference's functions, each result kept (a bounded number) for inputs equal bit for bit:
    the planning pass of every student asks for the same values on the worked example (a whole
    training run, say). Callers must not modify what they get."""

    def __init__(self, module, functions):
        self._module = module
        self._functions = set(functions)
        self._kept: OrderedDict = OrderedDict()  # the dear results
        self._cheap: OrderedDict = OrderedDict()  # the others
        self._callers: dict = {}  # name -> the memoised function, made once

    def __getattr__(self, name):
        caller = self._callers.get(name)
        if caller is None:
            fn = getattr(self._module, name)
            if name not in self._functions:
                return fn
            caller = self._callers[name] = lambda *args: self._value(name, fn, args)
        return caller

    def _value(self, name, fn, args):
        key = inputs_key(name, args)
        for kept in (self._kept, self._cheap):
            value = kept.get(key, _NOT_KEPT)
            if value is not _NOT_KEPT:
                kept.move_to_end(key)
                return value
        started = time.perf_counter()
        value = fn(*[copy_value(a) for a in args])
        kept, size = (
            (self._kept, MEMO_SIZE)
            if time.perf_counter() - started > DEAR
            else (self._cheap, CHEAP_SIZE)
        )
        kept[key] = value
        if len(kept) > size:
            kept.popitem(last=False)
        return value


class PlanningExpect(Expect):
    """Expect for the planning pass: every call answers as the reference does, so `same` has
    nothing to compare and returns the (reference's) value at once, and a value that is still the
    reference's answer bit for bit is right without being compared."""

    def same(self, function: str, *args, hidden: bool = True, check_inputs: bool = False):
        """As Expect.same, with the reference answering: its value, with nothing to compare.

        Args:
            function: the name of the function the suite asks for.
            args: its inputs, as the suite made them.
            hidden: a drawn (hidden) case, as for Expect.same: the ledger tracks it.
            check_inputs: unused: the reference leaves its inputs alone.
        """
        value, _ = self.call(function, *args, hidden=hidden)
        return value

    def _wrong(self, function: str, value, args, hidden: bool) -> tuple[str | None, str | None]:
        if _identical_floats(value, self._expected_for(function, args)):
            return None, None
        return super()._wrong(function, value, args, hidden)


def planning_call(memo: ReferenceMemo, plan: list[Planned], part: str):
    """A call for the planning pass: it records the call and answers as the reference does.
    `args` are Expect's own copies, which nothing else holds: the plan keeps them.

    Args:
        memo: the reference's functions, their results kept across students.
        plan: the student's planned calls so far, which each call is appended to.
        part: the part of the test being planned, recorded with each call.

    Returns:
        call(function, args) -> CallResult, as Expect makes its calls.
    """

    def call(function: str, args) -> CallResult:
        plan.append(planned := Planned(part, function, args))
        try:
            value = getattr(memo, function)(*args)
        except Exception as e:
            return CallResult("raised", message=type(e).__name__)
        planned.answer, planned.answered = value, True
        return CallResult("returned", copy_value(value), (False,) * len(args))

    return call


def _identical_floats(a, b) -> bool:
    """identical(a, b) for float64 arrays (or tuples of them) only: such values are also same() within
    any tolerance (see compare.py), which values of other dtypes need not be."""
    return identical(a, b) and _floats(a)


def _floats(value) -> bool:
    if isinstance(value, tuple):
        return all(map(_floats, value))
    return isinstance(value, np.ndarray) and value.dtype == np.float64


class StudentCalls:
    """One student's worker and calls, as the judging pass makes them.

    A part whose call timed out, killed its worker or answered malformed is dead: its later calls
    are not run. The other parts go on in a fresh worker.
    """

    def __init__(self, open_session, planned: list[Planned]):
        self._open_session = open_session  # () -> (session or None, load failure or None)
        self.planned = planned
        self.cursor = 0  # planned calls before it were served or passed over
        self.batched = False  # whether the planned calls have been run
        self.session: Session | None = None
        self.load_failure: tuple[str, str] | None = None
        self.dead_parts: dict = {}  # part -> (outcome, message)
        self.stream = False  # once a batch stopped short (timed out, its worker died), batches answer call by call
        self.output: list[str] = []  # what each worker printed
        self.returned: list[tuple[str, list, object]] = []  # (function, args, value) of each call

    def call(self, part: str, function: str, args) -> CallResult:
        """The call's result: served from the batch when planned, else made now in the worker.

        Args:
            part: the part of the test making the call; once a call of it ends its worker, the
                part is dead and its later calls are not run.
            function: the name of the student's function.
            args: its inputs, Expect's own copies.
        """
        if part in self.dead_parts:
            outcome, message = self.dead_parts[part]
            return CallResult(
                outcome, message=f"not run: {message} on an earlier check of this part"
            )
        index = self._find(function, args)
        result = None if index is None else self._served(index)
        if result is None:  # not planned (a test that branched on a wrong value): ask now
            if not self._ready():
                raise StudentProblem(*(self.load_failure or ("", "")))
            result = self._live().call(function, args)
        if result.kind in ENDING:
            self.dead_parts[part] = (result.kind, result.message)
            self.close_session()
        elif result.kind == "returned":
            self.returned.append((function, args, result.value))
        return result

    def returned_as_planned(self, start: int, end: int) -> bool:
        """Whether the planned calls [start, end) each returned exactly what the reference answered when
        they were planned, bit for bit, leaving their inputs alone (running the batch if it has not
        run). Then they are taken as served, in order, as the judging pass would have."""
        calls = self.planned[start:end]
        if not all(p.answered for p in calls) or self.cursor > start:
            return False
        if calls and not self.batched and self._ready():
            self._run_batch(self.cursor)
        if not all(
            p.result is not None
            and p.result.kind == "returned"
            and not any(p.result.inputs_changed)
            and identical(p.result.value, p.answer)
            for p in calls
        ):
            return False
        for p in calls:
            assert p.result is not None, "each returned, as checked above"
            self.returned.append((p.function, p.args, p.result.value))
            p.result = None  # served
        self.cursor = end
        return True

    def _find(self, function: str, args) -> int | None:
        for i in range(self.cursor, len(self.planned)):
            if self.planned[i].matches(function, args):
                self.cursor = i + 1
                return i
        return None

    def _served(self, index: int) -> CallResult | None:
        planned = self.planned[index]
        if planned.result is None and self._ready():
            self._run_batch(index)
        result, planned.result = planned.result, None  # served once
        return result

    def _live(self) -> Session:
        assert self.session is not None, "opened by _ready()"
        return self.session

    def _run_batch(self, start: int) -> None:
        """Run the planned calls from `start` on (but those of dead parts) in one exchange."""
        self.batched = True
        todo = [p for p in self.planned[start:] if p.part not in self.dead_parts]
        results = self._live().call_many([(p.function, p.args) for p in todo], stream=self.stream)
        if len(results) < len(todo) and not self.stream:
            # The batch stopped short (it outlasted one call's limit, or the worker ended or answered
            # malformed), and which call did it is unknown: the same calls again in a fresh worker,
            # answered one by one, as call-by-call grading would have made them.
            self.stream = True
            self.close_session()
            results = (
                self._live().call_many([(p.function, p.args) for p in todo], stream=True)
                if self._ready()
                else []
            )
        for planned, result in zip(todo, results):
            planned.result = result
        if results and results[-1].kind in ENDING:
            self.close_session()

    def _ready(self) -> bool:
        """A live worker for the next call, unless the submission cannot be loaded."""
        if self.load_failure is None and (self.session is None or self.session.status is not None):
            self.close_session()
            self.session, self.load_failure = self._open_session()
        return self.load_failure is None

    def close_session(self, *, wait: bool = True) -> None:
        """End the worker; without `wait`, the sandbox finishes that while grading goes on."""
        if self.session is not None:
            self.session.close(wait=wait)
            text = self.session.output.text()
            if text:
                self.output.append(text)
            self.session = None
