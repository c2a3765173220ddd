"""What the hidden suites use: a proxy to the student's functions and `Expect`, which compares.

A suite test asks `expect.same(function, *args)`: the student's function runs in the sandbox on
the values as the suite made them, the reference runs here, and a mismatch raises CheckFailed with one teaching
sentence (naming the catalogued mistake when the output matches one). Anything other than a
returned value (an exception, a timeout, a dead child) raises StudentProblem with its outcome.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from qkv.content.mistakes import inputs_key
from qkv.results.outcomes import Outcome
from qkv.shipped.compare import copy_value, crash_problem, problem
from qkv.suites import relations
from qkv.suites.ledger import Ledger, TestCalls


class CheckFailed(AssertionError):
    """The student's output or behaviour is wrong; `message` says how, `mistake` names it if known."""

    def __init__(self, message: str, mistake: str | None = None, outcome=Outcome.FAILED):
        super().__init__(message)
        self.message = message
        self.mistake = mistake
        self.outcome = outcome  # NOT_COUNTED: a property held, but the values were wrong


class StudentProblem(Exception):
    """The call did not return: outcome is raised, not_implemented, timeout, memory, exited or ungradable."""

    def __init__(self, outcome: str, message: str):
        super().__init__(message)
        self.outcome = outcome
        self.message = message


class Expect:
    """Compare one student's functions with the reference, within the course's tolerances."""

    def __init__(
        self,
        call,
        content,
        *,
        rtol: float,
        atol: float,
        show_inputs: bool,
        recorded: dict,
        shared: dict | None = None,
        expected=None,
        ledger: Ledger | None = None,
        check: int = -1,
    ):
        self._call = call  # call(function, args) -> sandbox.CallResult
        self.content = content
        self.reference = content.reference
        self._expected = expected or content.reference  # the reference's functions, maybe memoised
        self.rtol, self.atol = rtol, atol
        self.show_inputs = show_inputs
        self.recorded = recorded  # what the suites record for the feedback page, by name
        self.last_value = (
            None  # what the student's last call returned, kept even when a check fails
        )
        self._shared = (
            {} if shared is None else shared
        )  # one student's calls that several checks share
        self.ledger = ledger if ledger is not None else Ledger(frozenset())
        self.check = check  # this check's index among the student's, for the ledger
        self.calls = TestCalls()  # what this check called, for the ledger's public-only rule
        self._unjudged: list = []  # (function, value, args) returned by call() and not yet compared

    def call(self, function: str, *given: Any, hidden: bool = True):
        """The student's return value and which inputs it changed; raises StudentProblem otherwise
        (or CheckFailed when the error is the one a catalogued mistake raises on these inputs).
        `hidden=False` says the inputs are public (the worked example), as for same()."""
        args = [copy_value(a) for a in given]
        self._track(function, args, hidden)
        result = self._call(function, args)
        self.last_value = result.value
        if result.kind == "raised":
            catalogue = self.content.catalogue
            named = crash_problem(result.message, catalogue.crashes(self.reference, function, args))
            if named:
                raise CheckFailed(
                    f"{named} (It {result.message})", catalogue.id_of(function, named)
                )
        if result.kind != "returned":
            raise StudentProblem(Outcome.of_call(result.kind), result.message)
        self._unjudged.append((function, result.value, args))
        return result.value, result.inputs_changed

    def _track(self, function: str, args, hidden: bool) -> None:
        self.calls.called.add(function)
        if hidden and not self.ledger.is_public(function, args):
            self.calls.unseen.add(function)

    def call_shared(self, function: str, *args):
        """As call(), but made once per student for the same function: the checks that judge one
        expensive call (a whole training run, say) share its value, or its failure."""
        arrays = [copy_value(a) for a in args]
        self._track(function, arrays, True)
        key = inputs_key(function, arrays)
        if key not in self._shared:
            try:
                self._shared[key] = self.call(function, *args)
                self._unjudged.pop()  # a shared call is judged by the suite's own checks
            except StudentProblem as e:
                self._shared[key] = e
        outcome = self._shared[key]
        if isinstance(outcome, StudentProblem):
            raise outcome
        return outcome

    def drawn_once(self, name: str, draw):
        """draw(), made once per student: the checks that share a call on drawn inputs share them."""
        key = ("drawn", name)
        if key not in self._shared:
            self._shared[key] = draw()
        return self._shared[key]

    def accept(self, function: str, value, args) -> None:
        """The suite judged `value` right for `args` by a comparison of its own (a whole training
        run followed step by step, say): it counts as a right value.

        Args:
            function: the name of the student's function.
            value: what it returned, from call() or call_shared().
            args: the inputs it was called on.
        """
        self._take(value)
        self.note(function, args, right=True)

    def _fail(self, message: str, mistake: str | None, args, hidden: bool, outcome=Outcome.FAILED):
        if hidden and self.show_inputs:
            shown = "; ".join(map(_shown, args))
            message += f" Inputs: {shown}"
        raise CheckFailed(message, mistake, outcome)

    def _wrong(self, function: str, value, args, hidden: bool) -> tuple[str | None, str | None]:
        """(what is wrong with value, the catalogued mistake it matches), or (None, None) when it is right."""
        self._take(value)
        expected = self._expected_for(function, args)
        catalogue = self.content.catalogue
        # problem() is None for a right value; the mistakes' outputs are computed only for a wrong one
        msg = problem(
            value,
            expected,
            rtol=self.rtol,
            atol=self.atol,
            names=self.content.tuple_names.get(function),
            reveal=not hidden,
            variants=catalogue.variants(self.reference, function, args),
        )
        self.note(function, args, right=msg is None, hidden=hidden)
        if msg is None:
            return None, None
        mistake = catalogue.id_of(function, msg)
        if mistake is not None:  # named here; what to say instead, should the student's other
            # calls not fit it, is worked out only then
            self.ledger.named[self.check] = (
                function,
                mistake,
                msg,
                lambda: self._unnamed(function, value, expected, args, hidden),
            )
            return msg, mistake
        return self._related(msg, function, value, expected, args), None

    def _related(self, msg: str, function: str, value, expected, args) -> str:
        """msg, and how the wrong value relates to the right one (negated, transposed, ...)."""
        told = relations.describe(
            value,
            expected,
            args,
            rtol=self.rtol,
            atol=self.atol,
            names=self.content.tuple_names.get(function),
        )
        return f"{msg}. {told}" if told else msg

    def _unnamed(self, function: str, value, expected, args, hidden: bool) -> str:
        """What is wrong with value said without the catalogue."""
        names = self.content.tuple_names.get(function)
        msg = problem(
            value, expected, rtol=self.rtol, atol=self.atol, names=names, reveal=not hidden
        )
        return self._related(
            msg or "values differ from the expected ones", function, value, expected, args
        )

    def _take(self, value) -> None:
        """value is being compared now: it is no longer waiting for settle()."""
        self._unjudged = [u for u in self._unjudged if u[1] is not value]

    def note(self, function: str, args, *, right: bool, hidden: bool = True) -> None:
        """Note a judged call of function on args: a right value on an input the release does not
        show lets this student's public-only checks of function count (see ledger.py).

        Args:
            function: the name of the student's function.
            args: the inputs it was called on.
            right: whether its value was judged right.
            hidden: the inputs were drawn, not the worked example's (the ledger also looks).
        """
        self.ledger.judged.setdefault(function, []).append((relations.is_square(args), right))
        if right and hidden and not self._public(function, args):
            self.ledger.right(function, self.check)

    def _public(self, function: str, args) -> bool:
        return self.ledger.is_public(function, list(args))

    def settle(self) -> None:
        """After a check's own conditions held: it counts only if every value the student returned
        in it is right (a property alone is held by all zeros or the negated answer too)."""
        while self._unjudged:
            function, value, args = self._unjudged[0]
            hidden = not self._public(function, args)
            self.counts_if_right(function, value, args, "what this check looks at held", hidden)

    def _expected_for(self, function: str, args):
        """The reference's value on args (which it gets copies of: it must not change the test's)."""
        return getattr(self._expected, function)(*[copy_value(a) for a in args])

    def expected(self, function: str, *args):
        """The reference's value on args (kept for inputs asked for before: callers must not
        change it)."""
        return self._expected_for(function, args)

    def same(self, function: str, *args, hidden: bool = True, check_inputs: bool = False):
        """Fail unless the student's function returns what the reference returns on these inputs.

        Args:
            hidden: a drawn (hidden) case: the message then does not reveal expected numbers.
            check_inputs: also fail when the call modified any of its inputs.
        Returns:
            The student's value, for further property checks.
        """
        value, changed = self.call(function, *args, hidden=hidden)
        msg, mistake = self._wrong(function, value, args, hidden)
        if msg:
            if mistake is None:  # wrong values from changed inputs: the change is what to fix first
                self._fail_if_changed(function, changed, args, hidden)
            self._fail(msg, mistake, args, hidden)
        if check_inputs:
            self._fail_if_changed(function, changed, args, hidden)
        return value

    def unchanged(self, function: str, *args, hidden: bool = True):
        """Fail when the call modified one of its inputs; a call that leaves them alone still earns
        nothing while its values are wrong (and is told so)."""
        value, changed = self.call(function, *args, hidden=hidden)
        msg, mistake = self._wrong(function, value, args, hidden)
        self._fail_if_changed(function, changed, args, hidden)
        held = "the inputs were left unchanged, as they should be"
        self._fail_not_counted(held, msg, mistake, args, hidden)
        return value

    def counts_if_right(self, function: str, value, args, held: str, hidden: bool = True) -> None:
        """After a property held: fail, saying so, unless `value` is also the right value for `args`.
        A property alone earns no points (code that returns zeros leaves its inputs alone too).

        Args:
            function: the name of the student's function.
            value: what it returned, from call() or call_shared().
            args: the inputs it was called on.
            held: the property that held, in words that start the message.
            hidden: a drawn (hidden) case: the message then does not reveal expected numbers.
        """
        msg, mistake = self._wrong(function, value, args, hidden)
        self._fail_not_counted(held, msg, mistake, args, hidden)

    def _fail_not_counted(self, held: str, msg, mistake, args, hidden: bool) -> None:
        """Fail when msg says the values were wrong, although the property `held`."""
        if msg:
            message = f"{held}, but this check counts only with right values: {msg}"
            self._fail(message, mistake, args, hidden, Outcome.NOT_COUNTED)

    def _fail_if_changed(self, function: str, changed, args, hidden: bool) -> None:
        if any(changed):
            catalogue = self.content.catalogue
            mistake = next((m.id for m in catalogue.for_part(function) if m.mutates_input), None)
            self._fail(catalogue.mutation_message(function), mistake, args, hidden)

    def record(self, name: str, value) -> None:
        """Keep a plain JSON value (lists, numbers, None) for the feedback page under `name`."""
        self.recorded[name] = value

    def holds(self, condition: bool, message: str, mistake: str | None = None) -> None:
        """Fail with `message` unless a required property holds.

        Args:
            condition: whether the property holds, as the suite worked it out.
            message: the sentence the student reads when it does not.
            mistake: the id of the catalogued mistake the failure shows, or None.
        """
        if not condition:
            raise CheckFailed(message, mistake)


def _shown(value) -> str:
    """An input as a failing check's message shows it."""
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=3, separator=", ")
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."
