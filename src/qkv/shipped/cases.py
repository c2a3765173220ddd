"""The fixed public cases students may see, with the expected values and the catalogued wrong ones.

Written into the release as public_cases.json; the hidden suites draw their own seeded cases. The
cases themselves come from the assignment's content; this module computes what they should give.
"""

from __future__ import annotations

import numpy as np

from qkv.shipped.checks import decode, encode
from qkv.shipped.compare import copy_value

# Written values keep this many significant digits: matrix products give other last bits under
# other BLAS kernels (OPENBLAS_CORETYPE), and the release must be the same file on every CPU.
DIGITS = 10


def build(
    content, reference, *, rtol: float, atol: float, module: str, packages=("numpy",), timeouts=None
) -> dict:
    """The content of public_cases.json for one assignment.

    Args:
        content: the assignment's content: its public cases and its catalogue of mistakes.
        reference: the reference module, or a master being released, that gives the expected values.
        rtol, atol: the course's tolerances, written down for the checks to compare with.
        module: the student's module, which `qkv check` loads (attention for attention.py).
        packages: what student code may import besides the standard library (course.yaml).
        timeouts: {function: seconds} for the functions' own per-call limits, or None for none
            (Assignment.call_timeouts).
    """
    catalogue = content.catalogue
    functions = {}
    for function, cases in content.public_cases(reference).items():
        entries = []
        for name, raw in cases:
            # Expected values come from the inputs as written, so the shipped file is consistent.
            args = tuple(decode(steady(a, atol)) for a in raw)
            expected = getattr(reference, function)(*[copy_value(a) for a in args])
            entries.append(
                {
                    "name": name,
                    "args": [steady(a, atol) for a in args],
                    "expected": steady(expected, atol),
                    "variants": [
                        [msg, steady(v, atol)]
                        for msg, v in catalogue.variants(reference, function, args)
                    ],
                    "crashes": [list(c) for c in catalogue.crashes(reference, function, args)],
                    "mutation_message": catalogue.mutation_message(function),
                }
            )
        functions[function] = entries
    return {
        "module": module,
        "tolerance": {"rtol": rtol, "atol": atol},
        "packages": list(packages),
        "timeouts": dict(sorted((timeouts or {}).items())),
        "tuple_names": {f: list(n) for f, n in sorted(content.tuple_names.items())},
        "chain": {f: list(callees) for f, callees in content.calls.items()},
        "functions": functions,
    }


def steady(value, atol: float):
    """encode(value) with each float cut to DIGITS significant digits, and what is below a float
    array's own precision (under 1e-DIGITS of its largest value, and under atol / 10) written as
    0: a last-bit difference then changes no digit, and both cuts stay far inside the tolerance.
    Other values (ints, bools, their arrays, strings, None) are written as they are."""
    if isinstance(value, tuple):
        return {"tuple": [steady(v, atol) for v in value]}
    if isinstance(value, list):
        return {"list": [steady(v, atol) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[encode(k), steady(v, atol)] for k, v in value.items()]}
    floating = isinstance(value, (float, np.floating)) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "f"
    )
    if not floating:
        return encode(value)
    a = np.array(value, dtype=np.float64)
    finite = np.isfinite(a)
    if finite.any():
        cut = min(float(np.abs(a[finite]).max()) * 10.0**-DIGITS, atol / 10)
        a[finite & (np.abs(a) < cut)] = 0.0
    flat = [float(f"{x:.{DIGITS}g}") + 0.0 for x in a.ravel().tolist()]  # + 0.0: no -0.0
    if type(value) is float:
        return flat[0]
    cut_value = np.array(flat, dtype=np.float64).reshape(a.shape)
    if isinstance(value, np.generic):
        return encode(value.dtype.type(cut_value[()]))
    return encode(cut_value.astype(value.dtype, copy=False))
