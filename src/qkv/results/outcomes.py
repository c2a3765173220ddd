"""What a check came to, in one enum: the student is told which one it was (as PrairieLearn does).

A check passed, failed on its values or properties, or did not run to the end: the student's code
raised, was not written yet, timed out, ran out of memory, ended its process, could not be loaded,
or the grader itself failed; or, not a check at all, the grader adjusted the points by hand. The
sandbox's own words for a call or a load map onto these here.
"""

from __future__ import annotations

from enum import Enum


class Outcome(str, Enum):  # noqa: UP042 - StrEnum would change how str() shows an outcome
    PASSED = "passed"
    FAILED = "failed"
    NOT_COUNTED = "not_counted"  # a property held, but it counts only with right values
    RAISED = "raised"
    NOT_IMPLEMENTED = "not_implemented"
    TIMEOUT = "timeout"
    MEMORY = "memory"
    EXITED = "exited"
    UNGRADABLE = "ungradable"
    NOT_SUBMITTED = "not_submitted"  # nothing was handed in for it (a quiz without an answers file)
    GRADER_ERROR = "grader_error"
    ADJUSTED = "adjusted"  # not a check: a grader's manual adjustment (grading/overrides.py)

    def __str__(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        """What a student reads for it."""
        return _LABELS[self]

    @property
    def is_problem(self) -> bool:
        """The submission, not the student's maths, went wrong (or the grader did): instructors hear of it."""
        return self in (
            Outcome.TIMEOUT,
            Outcome.MEMORY,
            Outcome.EXITED,
            Outcome.UNGRADABLE,
            Outcome.GRADER_ERROR,
        )

    @classmethod
    def of_call(cls, kind: str) -> Outcome:
        """The outcome of a call that did not return (sandbox CallResult.kind)."""
        return _OF_CALL.get(kind, cls.EXITED)

    @classmethod
    def of_load(cls, reason: str) -> Outcome:
        """The outcome of a submission that could not be loaded (sandbox LoadResult.reason)."""
        return _OF_LOAD.get(reason, cls.UNGRADABLE)


def label(outcome: str) -> str:
    """The label of an outcome read back from a file (an unknown one is shown as it is)."""
    try:
        return Outcome(outcome).label
    except ValueError:
        return outcome


_LABELS = {
    Outcome.PASSED: "passed",
    Outcome.FAILED: "wrong result",
    Outcome.NOT_COUNTED: "held, not counted",
    Outcome.RAISED: "your code raised an exception",
    Outcome.NOT_IMPLEMENTED: "not implemented yet",
    Outcome.TIMEOUT: "timed out",
    Outcome.MEMORY: "out of memory",
    Outcome.EXITED: "the process exited",
    Outcome.UNGRADABLE: "could not be graded",
    Outcome.NOT_SUBMITTED: "not submitted",
    Outcome.GRADER_ERROR: "grader error (not your fault; tell your instructor)",
    Outcome.ADJUSTED: "adjusted by your grader",
}
_OF_CALL = {
    "raised": Outcome.RAISED,
    "not_implemented": Outcome.NOT_IMPLEMENTED,
    "missing": Outcome.UNGRADABLE,
    "timeout": Outcome.TIMEOUT,
    "memory": Outcome.MEMORY,
    "exited": Outcome.EXITED,
    "invalid": Outcome.EXITED,
}
_OF_LOAD = {"timeout": Outcome.TIMEOUT, "memory": Outcome.MEMORY, "exited": Outcome.EXITED}
