"""No points without the work: what one student's calls came to, across all their checks.

Two rules, the same for every assignment. A check counts only if every value the student returned
in it is the right value for its inputs (a property such as "rows sum to one" is held by wrong
answers too: all zeros, the negated answer). And it counts only if each function it called was also
right on an input the release does not show (not a public case, not the worked example), in this
check or another: a file that looks the public answers up and returns zeros otherwise earns
nothing. (A check on special inputs, where a fake may be right, judges a plain case too.)
"""

from __future__ import annotations

import dataclasses

from qkv.content.mistakes import inputs_key
from qkv.results.outcomes import Outcome
from qkv.results.records import TestResult
from qkv.suites.relations import SQUARE_ONLY, square_only


def public_keys(content) -> frozenset:
    """The inputs of every public case, bit for bit, as inputs_key gives them, and the forms they
    come in (see _form): most calls are told apart by their form alone, without a key."""
    cases = [(f, list(args)) for f, listed in content.public_cases().items() for _, args in listed]
    return frozenset(inputs_key(f, args) for f, args in cases) | {_form(f, a) for f, a in cases}


def _form(function: str, args) -> tuple:
    """The function and each input's type, shape and dtype."""
    return (
        function,
        *(
            (type(a).__name__, getattr(a, "shape", None), str(getattr(a, "dtype", "")))
            for a in args
        ),
    )


@dataclasses.dataclass
class Ledger:
    """One student's calls: which functions were right on an input the release does not show."""

    public: frozenset  # public_keys(): the public inputs' keys and forms
    right_unseen: dict[str, set[int]] = dataclasses.field(default_factory=dict)  # -> checks
    judged: dict[str, list] = dataclasses.field(default_factory=dict)  # -> (square, right)s
    # check -> (function, mistake, the message naming it, () -> the message without it); see
    # evidence.py
    named: dict[int, tuple] = dataclasses.field(default_factory=dict)

    def right(self, function: str, check: int) -> None:
        self.right_unseen.setdefault(function, set()).add(check)

    def seen_right(self, function: str) -> bool:
        """Whether function was right on an unseen input in any check."""
        return bool(self.right_unseen.get(function))

    def is_public(self, function: str, args) -> bool:
        return _form(function, args) in self.public and inputs_key(function, args) in self.public


@dataclasses.dataclass
class TestCalls:
    """What one check called: each function, and those it called on an input the release lacks."""

    called: set[str] = dataclasses.field(default_factory=set)
    unseen: set[str] = dataclasses.field(default_factory=set)


def counted(results: list[TestResult], called: list[set[str]], ledger: Ledger) -> list[TestResult]:
    """The checks that passed, failed unless each function they called was right on an input the
    release does not show (see the module's docstring).

    Args:
        results: one student's check results, in order.
        called: the functions each check called, called[i] for results[i].
        ledger: the student's ledger, filled as their calls were judged.
    """
    out = []
    for result, functions in zip(results, called):
        missing = sorted(f for f in functions if not ledger.seen_right(f))
        if result.outcome == Outcome.PASSED and missing:
            result = dataclasses.replace(
                result,
                score=0.0,
                outcome=Outcome.FAILED,
                output=(
                    f"{', '.join(missing)} returned the right values here, but this check counts "
                    "only when it is also right on cases the release does not show, and it was "
                    "right on none of them (see the other checks of this part)"
                ),
            )
        elif result.outcome == Outcome.FAILED and not result.mistake:
            square = [f for f in sorted(functions) if square_only(ledger.judged.get(f, []))]
            if square:
                said = result.output.rstrip(".")
                result = dataclasses.replace(result, output=f"{said}. {SQUARE_ONLY}")
        out.append(result)
    return out
