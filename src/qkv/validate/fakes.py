"""Answers that do no work, written from the reference: each must earn nothing in the part it fakes.

Trivial answers replace one function by one that returns, shaped like the right answer, all zeros,
all ones, fixed random numbers, the negated right answer or its first argument. A copied release
returns, for the inputs of a public case, the expected output shipped with the release, and zeros
(shaped like the right answer) for anything else.
"""

from __future__ import annotations

import json

TRIVIAL = ("zeros", "ones", "random", "negated", "first_argument")

_HELPERS = '''

import numpy as _fake_np


def _fake_like(value, args, kind):
    """What a fake answer returns in place of `value`, the right one, shaped like it."""
    if isinstance(value, (tuple, list)):
        return tuple(_fake_like(v, args, kind) for v in value)
    right = _fake_np.asarray(value, dtype=float)
    if kind == "zeros":
        return _fake_np.zeros_like(right)
    if kind == "ones":
        return _fake_np.ones_like(right)
    if kind == "random":
        return _fake_np.random.default_rng(0).normal(size=right.shape)
    if kind == "negated":
        return -right
    if kind == "first_argument":
        first = _fake_np.asarray(args[0], dtype=float).ravel()
        return _fake_np.resize(first, right.shape) if first.size else _fake_np.zeros_like(right)
    raise ValueError(kind)
'''

_TRIVIAL = """
_right_{f} = {f}


def {f}(*args, **kwargs):
    return _fake_like(_right_{f}(*args, **kwargs), args, {kind!r})
"""

_COPIED = """
_PUBLIC_CASES = _fake_json.loads({cases!r})


def _decoded(value):
    if isinstance(value, dict) and "tuple" in value:
        return tuple(_fake_np.asarray(v, dtype=float) for v in value["tuple"])
    return _fake_np.asarray(value, dtype=float)


def _looked_up(function, args):
    for case in _PUBLIC_CASES["functions"].get(function, []):
        shipped = case["args"]
        if len(shipped) == len(args) and all(
            _fake_np.shape(a) == _fake_np.shape(b) and _fake_np.allclose(a, b, rtol=1e-8, atol=1e-12)
            for a, b in zip(args, shipped)
        ):
            return _decoded(case["expected"])
    return None
"""

_COPIED_FUNCTION = """
_right_{f} = {f}


def {f}(*args, **kwargs):
    found = _looked_up({f!r}, args)
    return found if found is not None else _fake_like(_right_{f}(*args, **kwargs), args, "zeros")
"""


def trivial(reference_source: str, function: str, kind: str) -> str:
    """The reference with `function` answering `kind` (one of TRIVIAL) instead.

    Args:
        reference_source: the reference file's text, which the fake extends.
        function: the name of the function faked.
        kind: what it answers instead, one of TRIVIAL.
    """
    return reference_source + _HELPERS + _TRIVIAL.format(f=function, kind=kind)


def copied_release(reference_source: str, functions, public_cases: dict) -> str:
    """The reference with every function in `functions` looking its answer up in the release's
    public cases (public_cases.json as a dict) and returning zeros shaped like the right answer for
    any other input.

    Args:
        reference_source: the reference file's text, which the fake extends.
        functions: the names of the functions faked, every function of the assignment.
        public_cases: what the release ships as public_cases.json, read as a dict.
    """
    text = json.dumps(public_cases, separators=(",", ":"))
    body = "".join(_COPIED_FUNCTION.format(f=f) for f in functions)
    return (
        reference_source
        + _HELPERS
        + "\nimport json as _fake_json\n"
        + _COPIED.format(cases=text)
        + body
    )


def kinds(functions) -> dict[str, tuple[str, str]]:
    """Student kind -> (function, trivial kind), for every function and trivial kind."""
    return {f"trivial_{f}_{k}": (f, k) for f in functions for k in TRIVIAL}
