"""How a wrong output relates to the right one, for answers no catalogued mistake explains.

Works on any assignment: it compares arrays only, never names a function. A relation is named
only when the whole output fits it within the course's tolerance: negated, transposed, scaled by a
constant (named when it is a simple one: 2, 1/2, or a size of the inputs, its square root, or their
inverses), shifted by a constant per row, rows or columns in another order. Across a student's
calls it also tells a function right on square inputs only.
"""

from __future__ import annotations

import math

import numpy as np

from qkv.shipped.compare import as_array, close


def describe(actual, expected, args=(), *, rtol: float, atol: float, names=None) -> str | None:
    """One sentence on how `actual` relates to `expected` (arrays or tuples of them), or None.

    Args:
        actual: what the student's function returned.
        expected: what the reference returned on the same inputs.
        args: those inputs, whose sizes may name a scale factor (n, sqrt(n), 1/n).
        rtol, atol: the course's tolerances: a relation is named only when it fits within them.
        names: names of the tuple elements, e.g. ("Q", "K", "V"), or None for "item 0", ...
    """
    if isinstance(expected, tuple):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(expected):
            return None
        names = names or [f"item {i}" for i in range(len(expected))]
        told = []
        for name, a, e in zip(names, actual, expected):
            a = as_array(a)
            if a is None or not _wrong(a, e, rtol, atol):
                continue
            what = _relation(a, e, args, rtol, atol)
            if what is None:
                return None
            told.append(f"{name} {what}")
        return f"{'; '.join(told)}." if told else None
    a = as_array(actual)
    if a is None or not _wrong(a, expected, rtol, atol):
        return None
    what = _relation(a, expected, args, rtol, atol)
    return f"The result {what}." if what else None


def _wrong(a: np.ndarray, e: np.ndarray, rtol: float, atol: float) -> bool:
    return a.shape != e.shape or not bool(close(a, e, rtol, atol).all())


def _fits(a: np.ndarray, e: np.ndarray, rtol: float, atol: float) -> bool:
    return a.shape == e.shape and bool(close(a, e, rtol, atol).all())


def _relation(a: np.ndarray, e: np.ndarray, args, rtol: float, atol: float) -> str | None:
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(e))) or not np.any(e):
        return None
    if _fits(-a, e, rtol, atol):
        return "is the right answer with its sign flipped: check the sign"
    if e.ndim == 2 and a.shape == e.shape[::-1] and _fits(a.T, e, rtol, atol):
        return "is the right answer transposed: check which axis holds what"
    if e.ndim == 2 and e.shape[0] == e.shape[1] and _fits(a, e.T, rtol, atol):
        return "is the right answer transposed: check which axis holds what"
    if a.shape != e.shape:
        return None
    scaled = _scale(a, e, args, rtol, atol)
    if scaled:
        return scaled
    if e.ndim >= 1 and e.shape[-1] > 1:
        shift = a - e
        if np.any(np.abs(shift) > atol) and _fits(a, e + shift[..., :1], rtol, atol):
            return (
                "is the right answer shifted by a constant of its own in each row: look for a "
                "term added to, or left out of, every entry alike"
            )
    if e.ndim == 2:
        if _permuted(a, e, rtol, atol):
            return "has the right rows in another order: check the order of the inputs"
        if _permuted(a.T, e.T, rtol, atol):
            return "has the right columns in another order: check the order of the inputs"
    return None


def _scale(a: np.ndarray, e: np.ndarray, args, rtol: float, atol: float) -> str | None:
    c = float(np.sum(a * e) / np.sum(e * e))
    if not math.isfinite(c) or abs(c) < 1e-12 or abs(c - 1) < 1e-9:
        return None
    if not _fits(a, c * e, rtol, atol):
        return None
    name = _constant(c, args)
    said = f"{c:.4g}"
    if name:
        said = (
            name
            if name.startswith(f"{said} = ") or name.startswith(f"{said},")
            else f"{said} = {name}"
        )
    return f"is the right answer multiplied by {said}: look for a factor that should not be there"


def _constant(c: float, args) -> str | None:
    """Names for c: 2 or 1/2 (or their negatives), or n, sqrt(n), 1/n, 1/sqrt(n) for a size n of
    the inputs; every name that fits, since 1/2 may be 1/sqrt(4) as well."""
    names = [
        name
        for name, value in (("2", 2.0), ("1/2", 0.5), ("-2", -2.0), ("-1/2", -0.5))
        if math.isclose(c, value, rel_tol=1e-6)
    ]
    sized = set()
    for n in sorted({int(d) for x in args for d in np.shape(x) if int(d) > 1}):
        for name, value in (
            (f"1/sqrt({n})", 1 / math.sqrt(n)),
            (f"1/{n}", 1 / n),
            (f"sqrt({n})", math.sqrt(n)),
            (str(n), float(n)),
        ):
            if math.isclose(c, value, rel_tol=1e-6) and name not in names:
                names.append(name)
                sized.add(str(n))
    if not names:
        return None
    where = (
        f", where {' and '.join(sorted(sized, key=int))} is a size of the inputs" if sized else ""
    )
    return " = ".join(names) + where


def _permuted(a: np.ndarray, e: np.ndarray, rtol: float, atol: float) -> bool:
    """Whether a's rows are e's rows in another order (not the same order)."""
    if a.shape != e.shape or a.shape[0] < 2:
        return False
    left = list(range(e.shape[0]))
    for row in a:
        match = next((j for j in left if bool(close(row, e[j], rtol, atol).all())), None)
        if match is None:
            return False
        left.remove(match)
    return True


def square_only(judged: list[tuple[bool, bool]]) -> bool:
    """Whether calls judged as (inputs all square, right) were right on every square input and
    wrong on every other one, with some of each."""
    square = [right for sq, right in judged if sq]
    other = [right for sq, right in judged if not sq]
    return bool(square) and bool(other) and all(square) and not any(other)


def is_square(args) -> bool:
    """Whether every 2-D input is square (and there is one)."""
    matrices = [np.shape(x) for x in args if np.ndim(x) == 2]
    return bool(matrices) and all(s[0] == s[1] for s in matrices)


SQUARE_ONLY = (
    "It is right on square inputs only: somewhere a size is taken from the wrong axis, or a "
    "matrix used where its transpose belongs, which a square case cannot tell apart."
)
