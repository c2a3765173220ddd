"""What the child does to a returned value before it crosses the wire."""

from __future__ import annotations

import numpy as np

from qkv.sandbox import wire


def long_lists_as_arrays(value, depth: int = 0):
    """value with each list longer than the wire's MAX_ITEMS that numpy reads as one array of
    booleans, integers or floats (a loss per step kept as 1-element arrays, a mask as lists of
    bools) turned into that array, of the dtype numpy gives it: the wire keeps only a tuple's first
    MAX_ITEMS items, and every one of these values is judged, as what it is."""
    if not isinstance(value, (tuple, list)) or depth > 3:
        return value
    if len(value) > wire.MAX_ITEMS:
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError, OverflowError):
            return value
        return arr if arr.dtype.kind in "biuf" and arr.ndim <= wire.MAX_NDIM else value
    if isinstance(value, tuple):
        return tuple(long_lists_as_arrays(v, depth + 1) for v in value)
    return [long_lists_as_arrays(v, depth + 1) for v in value]
