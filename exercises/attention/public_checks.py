"""The public checks a student runs on their own work: the worked example and a few small fixed cases.

Never hidden cases: the cases come from public_cases.json, written by `qkv release`. The same
module serves `qkv check` (which calls the student's code in a sandboxed child process) and the student
bundle's plain `pytest` (which imports the student's module directly). Depends on numpy and
compare.py only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# in the bundle: from compare import ...
from compare import copy_value, crash_problem, identical, problem

CASES_FILE = "public_cases.json"


class NotImplementedYet(Exception):
    """The student function still raises NotImplementedError."""


@dataclass(frozen=True)
class Line:
    """The verdict for one function: ok, todo (not implemented) or fail, with one sentence; or a note
    on the file (a line of its own code that stopped while it loaded)."""

    function: str
    status: str
    message: str

    def __str__(self) -> str:
        mark = {"ok": "PASS", "todo": "TODO", "fail": "FAIL", "note": "NOTE"}[self.status]
        return f"{mark}  {self.function}: {self.message}"


def decode(value):
    """A value from its JSON form in public_cases.json (see encode)."""
    if isinstance(value, list):
        return np.array(value, dtype=np.float64)
    if not isinstance(value, dict):
        return value  # None, a bool, an int, a float or a string
    if "tuple" in value:
        return tuple(decode(v) for v in value["tuple"])
    if "list" in value:
        return [decode(v) for v in value["list"]]
    if "dict" in value:
        return {decode(k): decode(v) for k, v in value["dict"]}
    if "scalar" in value:
        return np.dtype(value["dtype"]).type(value["scalar"])
    return np.array(value["array"], dtype=value.get("dtype", "float64")).reshape(value["shape"])


def encode(value):
    """A value's JSON form: a float64 array as nested lists; None, bools, ints, floats and strings
    as themselves; other arrays, numpy scalars, tuples, lists and dicts as an object that says
    which they are, so that each reads back as the type it was."""
    if isinstance(value, np.ndarray):
        if value.dtype == np.float64 and value.ndim and value.size:
            return value.tolist()
        return {"array": value.tolist(), "dtype": value.dtype.name, "shape": list(value.shape)}
    if isinstance(value, np.generic):
        return {"scalar": value.item(), "dtype": value.dtype.name}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"list": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    return value


def load_cases(path: Path | str | None = None) -> dict:
    path = Path(path) if path else Path(__file__).with_name(CASES_FILE)
    return json.loads(path.read_text(encoding="utf-8"))


def check_function(call, function: str, cases: dict) -> Line:
    """Run every public case of one function; report the first failure, or ok.

    Args:
        call: call(function, args) -> (value, inputs_changed: list[bool]); raises
            NotImplementedYet, or any other exception with a message fit for the student.
        function: the function name.
        cases: the parsed public_cases.json.
    """
    tol = cases["tolerance"]
    entries = cases["functions"][function]
    for case in entries:
        args = [decode(a) for a in case["args"]]
        try:
            value, changed = call(function, args)
        except NotImplementedYet:
            return Line(
                function, "todo", "not implemented yet (it still raises NotImplementedError)"
            )
        except Exception as e:  # the student's exception, already reduced to a sentence
            named = crash_problem(str(e), case.get("crashes", ()))
            return Line(
                function,
                "fail",
                f"on {case['name']}: {named} (It {e})" if named else f"on {case['name']}: {e}",
            )
        variants = [(msg, decode(v)) for msg, v in case["variants"]]
        msg = problem(
            value,
            decode(case["expected"]),
            rtol=tol["rtol"],
            atol=tol["atol"],
            names=cases.get("tuple_names", {}).get(function),
            variants=variants,
        )
        if any(changed):  # changed inputs come first: they may be why the values are wrong
            return Line(function, "fail", f"on {case['name']}: {case['mutation_message']}")
        if msg:
            return Line(function, "fail", f"on {case['name']}: {msg}")
    return Line(
        function, "ok", f"{len(entries)} public check{'s' if len(entries) != 1 else ''} passed"
    )


def callees(function: str, failing, calls: dict) -> list[str]:
    """Of the failing functions, those a chain function calls.

    Args:
        function: the function whose callees are asked for; one that is not a key of `calls`
            calls none.
        failing: the names of the functions that fail.
        calls: chain function -> the assignment's functions it calls, in the content's order.
    """
    return [f for f in calls.get(function, ()) if f in set(failing)]


def chain_hint(function: str, failing, calls: dict) -> str:
    """What to add to a failing chain function when some of the functions it calls fail too.

    Args:
        function: the failing function.
        failing: the names of the functions that fail.
        calls: chain function -> the assignment's functions it calls, in the content's order.

    Returns:
        "; ... fix that first." to append to its message, or "" when none of its callees fail.
    """
    names = callees(function, failing, calls)
    if not names:
        return ""
    called = [f"{f}()" for f in names]
    listed = called[0] if len(called) == 1 else ", ".join(called[:-1]) + " and " + called[-1]
    if len(called) == 1:
        return f"; {function}() calls your own functions, and {listed} fails on its own: fix that first."
    return (
        f"; {function}() calls your own functions, and {listed} fail on their own: fix them first."
    )


def with_chain_hints(lines: list[Line], cases: dict) -> list[Line]:
    """Each failing chain function's line, told which of the functions it calls fail on their own."""
    failing = [line.function for line in lines if line.status == "fail"]
    calls = cases.get("chain", {})
    return [
        Line(line.function, line.status, line.message + chain_hint(line.function, failing, calls))
        if line.status == "fail"
        else line
        for line in lines
    ]


def direct_call(module, file_name: str = "your file"):
    """A call() for check_function that runs the student's module in this process (bundle use)."""

    def call(function, args):
        fn = getattr(module, function, None)
        if not callable(fn):
            raise Exception(f"{file_name} defines no function {function}()")
        copies = [copy_value(a) for a in args]
        try:
            value = fn(*copies)
        except NotImplementedError:
            raise NotImplementedYet() from None
        except Exception as e:
            raise Exception(f"raised {type(e).__name__}: {e}") from None
        changed = [not identical(a, c) for a, c in zip(args, copies)]
        return value, changed

    return call
