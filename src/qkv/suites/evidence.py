"""A mistake is named only where the evidence fits it: every value the student's function returned.

A check names a catalogued mistake when the wrong value it judged is that mistake's output on its
inputs and no other's. But two errors can agree on one case and part on another (shifting each row
by its largest |score| underflows the rows near -1000 as the whole matrix's maximum does, and is
right on the rows near 0 where the latter is not). So once a student's checks have run, a name is
kept only if the mistake's output matches what the function returned on every call it made;
otherwise the check says what is wrong without the name.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from qkv.results.records import TestResult
from qkv.shipped.compare import same
from qkv.suites.ledger import Ledger


def named_where_it_fits(
    results: list[TestResult], ledger: Ledger, returned: list, content, *, rtol: float, atol: float
) -> list[TestResult]:
    """The results, each catalogued name the student's other calls contradict taken back.

    Args:
        results: one student's check results, in order (results[i] is check i of the ledger).
        ledger: the student's ledger, with the names its checks gave and what to say instead.
        returned: (function, args, value) of every call of the student's that returned.
        content: the assignment's content, for its catalogue and reference.
        rtol, atol: the course's tolerance.
    """
    fits: dict[tuple[str, str], bool] = {}
    out = list(results)
    for check, (function, mistake, named, plain) in ledger.named.items():
        if check >= len(out) or out[check].mistake != mistake:
            continue
        key = (function, mistake)
        if key not in fits:
            fits[key] = _fits(content, function, mistake, returned, rtol, atol)
        if not fits[key]:
            result = out[check]
            out[check] = dataclasses.replace(
                result, output=result.output.replace(named, plain(), 1), mistake=None
            )
    return out


def _fits(content, function: str, mistake: str, returned: list, rtol: float, atol: float) -> bool:
    """Whether the mistake returns what the student's function did on every call of it where both
    returned finite values: the same misconception written another way may overflow (or raise)
    where the catalogue's form does not (exp(S) / (1 + exp(S)) against 1 / (1 + exp(-S))), and
    that says nothing against it."""
    catalogue, reference = content.catalogue, content.reference
    for called, args, value in returned:
        if called != function or not _finite(value):
            continue
        outputs = catalogue.outputs(reference, mistake, args)
        if not outputs or not all(map(_finite, outputs)):  # it raised, or overflowed, here
            continue
        if not any(same(value, wrong, rtol, atol) for wrong in outputs):
            return False
    return True


def _finite(value) -> bool:
    """False for a float array (or a tuple or list holding one) with a nan or an infinity."""
    if isinstance(value, (tuple, list)):
        return all(map(_finite, value))
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return bool(np.isfinite(value).all())
    return not isinstance(value, float) or math.isfinite(value)
