"""Compare one returned value with the expected one and say, in a sentence, what is wrong.

This module depends on numpy only: it ships in the student bundle. The order of the checks, the
matching of known mistakes and what counts as close: docs/internals/grading.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def as_array(value):
    """Return value as a float64 array, or None when it cannot be one."""
    if value is None or isinstance(value, (str, bytes, dict)):
        return None
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return None if arr.dtype == object else arr


def copy_value(value):
    """A copy of a value the callee may change: arrays with their dtype, containers item by item."""
    kind = type(value)
    if kind is np.ndarray:
        return value.copy()
    if kind is tuple or kind is list:
        return kind(map(copy_value, value))
    if kind is dict:
        return {k: copy_value(v) for k, v in value.items()}
    return value  # None, a number, a string, a numpy scalar: nothing to change in place


def identical(a, b) -> bool:
    """The same value bit for bit: one type, dtype, shape and bytes; containers item by item."""
    kind = type(a)
    if kind is not type(b):
        return False
    if isinstance(a, (np.ndarray, np.generic)):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if kind is tuple or kind is list:
        return len(a) == len(b) and all(map(identical, a, b))
    if kind is dict:
        return list(a) == list(b) and all(identical(a[k], b[k]) for k in a)
    if kind is float:
        return np.float64(a).tobytes() == np.float64(b).tobytes()
    try:
        return bool(a == b)
    except Exception:
        return False


def _numbers(value: list) -> bool:
    """Whether a list spells an array of numbers (not of booleans), as numpy reads it."""
    try:
        return np.asarray(value).dtype.kind in "fiu"
    except (TypeError, ValueError):  # ragged
        return False


def _exact(value) -> bool:
    """Whether a reference value is compared exactly: bools, ints and arrays of them."""
    if isinstance(value, (bool, int, np.bool_, np.integer)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "biu"


def close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """numpy.isclose(a, b, rtol, atol, equal_nan=True), cheaper; an infinity is close only to itself.

    Args:
        a: the values returned, a float array.
        b: the values expected, of a's shape.
        rtol, atol: the relative tolerance, a fraction of |b|, and the absolute one added to it.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - b)
        ok = (diff <= atol + rtol * np.abs(b)) & (diff != np.inf)  # a number is never an infinity
    ok |= a == b  # equal infinities
    ok |= np.isnan(a) & np.isnan(b)
    return ok


def _all_close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    """close(a, b, rtol, atol).all() for float64 arrays of one shape, deciding the usual cases cheaply
    (how, and why it agrees with close(): docs/internals/grading.md)."""
    if a.size:
        x, y = a.item(0), b.item(0)
        if abs(x - y) > atol + rtol * abs(y):
            return False
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - b)
        if (diff <= atol + rtol * np.abs(b)).all():  # (an infinity's tolerance is infinite)
            return bool(diff.max(initial=0.0) < np.inf)
    if not np.isnan(diff).any():
        return False
    return bool(close(a, b, rtol, atol).all())


# "Close but not within tolerance": what float32 arithmetic (or a stray epsilon) gives.
NEAR_RTOL = 1e-5
NEAR_MESSAGE = (
    "agrees with the expected values to only a few significant digits, as float32 arithmetic, "
    "an added epsilon or a clipped value gives: compute in float64, numpy's default, with no "
    "extra constants or clipping"
)


def same(a, b, rtol: float, atol: float) -> bool:
    """Whether `a` matches `b` within the tolerances: what problem() returns None for.

    Args:
        a: the value returned (array, tuple of arrays, or anything else).
        b: the value expected (array or tuple of arrays).
        rtol, atol: the relative tolerance, a fraction of the expected value, and the absolute one.
    """
    return _Against(a, rtol, atol).same(b)


_UNSET = object()


class _Against:
    """Whether `actual` matches a value within the tolerances (same()), with what is done to `actual`
    alone (its conversion to an array, its items) done once: problem() asks it of every variant."""

    def __init__(self, actual, rtol: float, atol: float):
        self.actual, self.rtol, self.atol = actual, rtol, atol
        self._array: Any = _UNSET  # as_array(actual), once needed
        self._items: list[_Against] | None = (
            None  # an _Against per item, when actual is a tuple or a list
        )

    def same(self, other) -> bool:
        actual = self.actual
        kind = type(other)
        if kind is list and _numbers(other):
            kind = np.ndarray  # a list of numbers stands for the float array it spells
        if isinstance(other, tuple) or kind is list:  # item by item, a list standing for a tuple
            if not isinstance(actual, (tuple, list)):
                return False
            if self._items is None:
                self._items = [_Against(x, self.rtol, self.atol) for x in actual]
            return len(self._items) == len(other) and all(
                item.same(y) for item, y in zip(self._items, other)
            )
        if kind is dict:
            return (
                type(actual) is dict
                and set(actual) == set(other)
                and all(_Against(actual[k], self.rtol, self.atol).same(other[k]) for k in other)
            )
        if other is None or kind is str:
            return type(actual) is kind and actual == other
        if _exact(other):
            return _exact_problem(actual, other, "", True) is None
        if self._array is _UNSET:  # a list (or a tuple of rows) of numbers is the array it spells
            self._array = as_array(actual)
        a, b = (
            self._array,
            other if type(other) is np.ndarray and other.dtype == np.float64 else as_array(other),
        )
        return (
            a is not None
            and b is not None
            and a.shape == b.shape
            and _all_close(a, b, self.rtol, self.atol)
        )


def _named(against, actual, expected, variants, rtol: float, atol: float) -> str | None:
    """The mistake the value shows, when the evidence fits that mistake and no other: exactly one
    catalogued message matches (two mistakes that give the same numbers here name neither)."""
    found = {
        message
        for message, wrong in variants
        if against.same(wrong) and not same(wrong, expected, rtol, atol)
    }
    return found.pop() if len(found) == 1 else None


_INTS = (int, np.integer)
_BOOLS = (bool, np.bool_)


def _exact_problem(actual, expected, what: str, reveal: bool) -> str | None:
    """What is wrong with `actual` against an exactly compared value (see _exact), or None."""
    if isinstance(expected, _BOOLS):
        if isinstance(actual, _BOOLS) and bool(actual) == bool(expected):
            return None
        if not isinstance(actual, _BOOLS):
            return f"{what} is {_kind(actual)}, expected a bool (True or False)"
        return f"{what} is {bool(actual)}, expected {bool(expected)}"
    if not isinstance(expected, np.ndarray):  # an int
        if not isinstance(actual, _INTS) or isinstance(actual, _BOOLS):
            return f"{what} is {_kind(actual)}, expected an int"
        if int(actual) == int(expected):
            return None
        return (
            f"{what} is {int(actual)}, expected {int(expected)}"
            if reveal
            else (f"{what} is {int(actual)}, which is not the expected value")
        )
    arr = actual
    if isinstance(actual, (list, tuple)):
        try:
            arr = np.asarray(actual)
        except (TypeError, ValueError):
            arr = None
    boolean = expected.dtype.kind == "b"
    wanted = "booleans (dtype bool)" if boolean else "integers"
    if not isinstance(arr, np.ndarray):
        return f"{what} is {_kind(actual)}, expected an array of {wanted} of shape {expected.shape}"
    if arr.dtype.kind not in ("b" if boolean else "iu"):
        return f"{what} is an array of {arr.dtype}, expected an array of {wanted}"
    if arr.shape != expected.shape:
        hint = " (transposed?)" if arr.shape == expected.shape[::-1] and arr.ndim == 2 else ""
        return f"{what} has shape {arr.shape}, expected {expected.shape}{hint}"
    ok = arr == expected
    if ok.all():
        return None
    bad = int((~ok).sum())
    if not reveal:
        return f"{what} differs from the expected values in {bad} of {ok.size} entries"
    idx = np.unravel_index(int(np.argmin(ok)), arr.shape) if arr.ndim else ()
    where = f"[{', '.join(map(str, idx))}]" if idx else ""
    return (
        f"{what}{where} is {arr[idx]}, expected {expected[idx]} ({bad} of {ok.size} entries differ)"
    )


def _kind(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)}"
    return (
        getattr(value, "type_name", None) or type(value).__name__
    )  # from a sandbox, only the name crossed


def _array_problem(
    actual, expected: np.ndarray, what: str, rtol: float, atol: float, reveal: bool = True
):
    arr = as_array(actual)
    if arr is None:
        return f"{what} is {_kind(actual)}, expected an array of shape {expected.shape}"
    if arr.shape != expected.shape:
        hint = ""
        if arr.shape == expected.shape[::-1] and arr.ndim == 2:
            hint = " (transposed?)"
        return f"{what} has shape {arr.shape}, expected {expected.shape}{hint}"
    if not np.all(np.isfinite(arr)) and np.all(np.isfinite(expected)):
        bad = int(np.sum(~np.isfinite(arr)))
        return f"{what} has {bad} nan/inf entr{'y' if bad == 1 else 'ies'}; every entry should be finite"
    ok = close(arr, expected, rtol, atol)
    if not ok.all() and _near(arr, expected):
        return f"{what} {NEAR_MESSAGE}"
    if not ok.all():
        idx = np.unravel_index(int(np.argmin(ok)), arr.shape) if arr.ndim else ()
        where = f"[{', '.join(map(str, idx))}]" if idx else ""
        if not reveal:  # a hidden case: say how wrong, not what the answer is
            return f"{what} differs from the expected values in {int((~ok).sum())} of {ok.size} entries"
        return (
            f"{what}{where} is {arr[idx]:.6g}, expected {expected[idx]:.6g} "
            f"({int((~ok).sum())} of {ok.size} entries differ)"
        )
    return None


def _near(arr: np.ndarray, expected: np.ndarray) -> bool:
    """Every entry within NEAR_RTOL of the array's scale: right in substance, wrong in precision."""
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        return bool(np.all(np.abs(arr - expected) <= NEAR_RTOL * max(scale, 1e-12)))


def crash_problem(error: str, crashes=()) -> str | None:
    """The catalogued mistake whose code raises the same error on the same inputs, when exactly one
    does: the whole message counts, sizes included (`V @ A` and `A.T @ V` both fail in matmul,
    with other sizes), and an error that several mistakes raise names none of them.

    Args:
        error: the student's error as reported ("raised ValueError: matmul: ... (line 3 ...)").
        crashes: (message, "ErrorType: text") pairs, one per mistake that raises on these inputs.
    """
    said = " ".join(error.split())
    found = {
        message
        for message, signature in crashes
        if said.startswith("raised " + " ".join(signature.split())[:SIGNATURE_CHARS])
    }
    return found.pop() if len(found) == 1 else None


SIGNATURE_CHARS = 250  # of "Type: text": the student's text is cut at 300 characters


def same_error(a: str, b: str) -> bool:
    """Whether two errors ("ErrorType: text") are the same error, whatever the numbers in them."""
    return _gist(a)[:100] == _gist(b)[:100]


def _gist(text: str) -> str:
    """An error message with its numbers (shapes, sizes, axes) blanked and its spaces collapsed:
    `K @ Q` and `Q @ K` fail alike whatever the shapes of the case."""
    out: list[str] = []
    for c in " ".join(text.split()):
        if c.isdigit():
            if not out or out[-1] != "#":
                out.append("#")
        else:
            out.append(c)
    return "".join(out)


def problem(
    actual, expected, *, rtol: float, atol: float, names=None, variants=(), reveal: bool = True
):
    """Return None when actual matches expected, else one sentence on what is wrong.

    Args:
        actual: what the student's function returned (array, tuple of arrays, or anything else).
        expected: the reference value (array or tuple of arrays).
        names: names of the tuple elements, e.g. ("Q", "K", "V").
        variants: (message, wrong_value) pairs; a match names the misconception.
        reveal: False for hidden cases: the message then gives no expected numbers.
    """
    against = _Against(actual, rtol, atol)
    if against.same(expected):
        return None
    named = _named(against, actual, expected, variants, rtol, atol)
    if named:
        return named
    if actual is None:
        return "returned None: did you forget a return statement?"
    return (
        _problem(actual, expected, "the result", rtol, atol, reveal, names, top=True)
        or "values differ from the expected ones"
    )


def _problem(actual, expected, what, rtol, atol, reveal, names=None, top=False) -> str | None:
    """What is wrong with one value (an item of a tuple, say), or None when it is right."""
    kind = type(expected)
    if kind is list and _numbers(expected):
        kind = np.ndarray  # a list of numbers stands for the float array it spells
    said = "returned" if top else f"{what} is"
    if isinstance(expected, tuple) or kind is list:
        if isinstance(actual, list) and kind is not list:
            actual = tuple(actual)
        names = names or [f"item {i}" for i in range(len(expected))]
        container = "a list" if kind is list else "a tuple"
        if not isinstance(actual, (tuple, list)):
            return f"{said} {_kind(actual)}, expected {container} ({', '.join(names)})"
        if len(actual) != len(expected):
            held = "a tuple" if isinstance(actual, tuple) else "a list"
            return f"{said} {held} of {len(actual)}, expected {len(expected)} ({', '.join(names)})"
        for name, a, e in zip(names, actual, expected):
            msg = _problem(a, e, name, rtol, atol, reveal)
            if msg:
                return msg
        return "values differ from the expected ones"
    if kind is dict:
        if type(actual) is not dict:
            return f"{said} {_kind(actual)}, expected a dict"
        if set(actual) != set(expected):
            missing = [k for k in expected if k not in actual]
            extra = [k for k in actual if k not in expected]
            return (
                f"{what} lacks the key {missing[0]!r}"
                if missing
                else f"{what} has an extra key {extra[0]!r}"
            )
        for k in expected:
            msg = _problem(actual[k], expected[k], f"{what}[{k!r}]", rtol, atol, reveal)
            if msg:
                return msg
        return None
    if expected is None or kind is str:
        if type(actual) is kind and actual == expected:
            return None
        if type(actual) is not kind:
            wanted = "None" if expected is None else "a string"
            return f"{said} {_kind(actual)}, expected {wanted}"
        return (
            f"{what} is {actual[:40]!r}, expected {expected[:40]!r}"
            if reveal
            else (f"{what} is {actual[:40]!r}, which is not the expected text")
        )
    if _exact(expected):
        return _exact_problem(actual, expected, what, reveal)
    if top and isinstance(actual, (list, tuple)) and as_array(actual) is not None:
        actual = as_array(actual)  # a list that is not one (ragged, of strings) is told as a list
    return _array_problem(actual, as_array(expected), what, rtol, atol, reveal)
