"""Compare one returned value with the expected one and say, in a sentence, what is wrong.

Checks run in order (returned something, is an array, right shape, finite, right values) and the
first that fails is reported with actual against expected. When the values are wrong, the output
is matched against known wrong variants (the misconception catalogue, computed elsewhere) so the
message can name the mistake. This module depends on numpy only: it ships in the student bundle.

More in docs/internals/grading.md.
"""

from __future__ import annotations

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


def close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """numpy.isclose(a, b, rtol, atol, equal_nan=True) for float arrays, without its per-call overhead."""
    with np.errstate(invalid="ignore", over="ignore"):
        ok = np.abs(a - b) <= atol + rtol * np.abs(b)
    ok |= a == b  # equal infinities
    ok |= np.isnan(a) & np.isnan(b)
    return ok


def _all_close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    """close(a, b, rtol, atol).all() for float64 arrays of one shape, deciding the usual cases cheaply.

    First entry: a difference out of tolerance settles it (a wrong value, or a catalogued variant that
    is not the student's mistake, usually differs there). Python's floats do numpy's IEEE arithmetic,
    and a difference that is nan (equal infinities, a nan) is never out of tolerance here, so this
    refuses only what close() refuses. Then one comparison of every entry: all within tolerance, or
    some entry not, with no difference nan (only a nan difference can come from equal infinities or
    two nans, which close() also accepts)."""
    if a.size:
        x, y = a.item(0), b.item(0)
        if abs(x - y) > atol + rtol * abs(y):
            return False
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - b)
        if (diff <= atol + rtol * np.abs(b)).all():
            return True
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
    """Whether `a` matches `b` within the tolerances: what problem() returns None for."""
    return _Against(a, rtol, atol).same(b)


_UNSET = object()


class _Against:
    """Whether `actual` matches a value within the tolerances (same()), with what is done to `actual`
    alone (its conversion to an array, its items) done once: problem() asks it of every variant."""

    def __init__(self, actual, rtol: float, atol: float):
        self.actual, self.rtol, self.atol = actual, rtol, atol
        self._array: object = _UNSET  # as_array(actual), once needed
        # An _Against per item, when actual is a tuple or a list.
        self._items: list[_Against] | None = None

    def same(self, other) -> bool:
        actual = self.actual
        if isinstance(other, tuple):  # item by item, a list of values standing for a tuple
            if not isinstance(actual, (tuple, list)):
                return False
            if self._items is None:
                self._items = [_Against(x, self.rtol, self.atol) for x in actual]
            items = self._items
            return len(items) == len(other) and all(item.same(y) for item, y in zip(items, other))
        if self._array is _UNSET:  # a list (or a tuple of rows) of numbers is the array it spells
            self._array = as_array(actual)
        a, b = (
            self._array,
            other if type(other) is np.ndarray and other.dtype == np.float64 else as_array(other),
        )
        return (
            isinstance(a, np.ndarray)
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
    if isinstance(actual, list):
        actual = tuple(actual) if isinstance(expected, tuple) else as_array(actual)
    elif (
        isinstance(actual, tuple)
        and not isinstance(expected, tuple)
        and as_array(actual) is not None
    ):
        actual = as_array(actual)
    if isinstance(expected, tuple):
        names = names or [f"item {i}" for i in range(len(expected))]
        if not isinstance(actual, tuple):
            return f"returned {_kind(actual)}, expected a tuple ({', '.join(names)})"
        if len(actual) != len(expected):
            return (
                f"returned a tuple of {len(actual)}, expected {len(expected)} ({', '.join(names)})"
            )
        for name, a, e in zip(names, actual, expected):
            msg = _array_problem(a, e, name, rtol, atol, reveal)
            if msg:
                return msg
        return "values differ from the expected ones"
    return (
        _array_problem(actual, expected, "the result", rtol, atol, reveal)
        or "values differ from the expected ones"
    )
