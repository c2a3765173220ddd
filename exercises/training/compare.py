"""Compare one returned value with the expected one and say, in a sentence, what is wrong.

Checks run in order (returned something, is an array, right shape, finite, right values) and the
first that fails is reported with actual against expected. When the values are wrong, the output
is matched against known wrong variants (the misconception catalogue, computed elsewhere) so the
message can name the mistake. This module depends on numpy only: it ships in the student bundle.
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


def _same(a, b, rtol, atol) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same(x, y, rtol, atol) for x, y in zip(a, b)))
    a, b = as_array(a), as_array(b)
    return a is not None and b is not None and a.shape == b.shape and bool(close(a, b, rtol, atol).all())


def _kind(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)}"
    return type(value).__name__


def _array_problem(actual, expected: np.ndarray, what: str, rtol: float, atol: float, reveal: bool = True):
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
    if not ok.all():
        idx = np.unravel_index(int(np.argmin(ok)), arr.shape) if arr.ndim else ()
        where = f"[{', '.join(map(str, idx))}]" if idx else ""
        if not reveal:  # a hidden case: say how wrong, not what the answer is
            return f"{what} differs from the expected values in {int((~ok).sum())} of {ok.size} entries"
        return (f"{what}{where} is {arr[idx]:.6g}, expected {expected[idx]:.6g} "
                f"({int((~ok).sum())} of {ok.size} entries differ)")
    return None


def problem(actual, expected, *, rtol: float, atol: float, names=None, variants=(), reveal: bool = True):
    """Return None when actual matches expected, else one sentence on what is wrong.

    Args:
        actual: what the student's function returned (array, tuple of arrays, or anything else).
        expected: the reference value (array or tuple of arrays).
        names: names of the tuple elements, e.g. ("Q", "K", "V").
        variants: (message, wrong_value) pairs; a match names the misconception.
        reveal: False for hidden cases: the message then gives no expected numbers.
    """
    if _same(actual, expected, rtol, atol):
        return None
    for message, wrong in variants:
        if not _same(wrong, expected, rtol, atol) and _same(actual, wrong, rtol, atol):
            return message
    if actual is None:
        return "returned None: did you forget a return statement?"
    if isinstance(expected, tuple):
        names = names or [f"item {i}" for i in range(len(expected))]
        if not isinstance(actual, tuple):
            return f"returned {_kind(actual)}, expected a tuple ({', '.join(names)})"
        if len(actual) != len(expected):
            return f"returned a tuple of {len(actual)}, expected {len(expected)} ({', '.join(names)})"
        for name, a, e in zip(names, actual, expected):
            msg = _array_problem(a, e, name, rtol, atol, reveal)
            if msg:
                return msg
        return "values differ from the expected ones"
    return _array_problem(actual, expected, "the result", rtol, atol, reveal) or "values differ from the expected ones"
