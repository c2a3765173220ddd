"""The message format between the grader and a child: a JSON header plus raw float64 bytes.

Frame: 4-byte big-endian header length, the UTF-8 JSON header, then the payload whose length the
header states. Values are trees of arrays, tuples and None; arrays travel as little-endian float64
with their shape in the header. Nothing is ever unpickled, and the reading side checks every size
before it allocates: a child's reply is untrusted input.

More in docs/internals/sandbox.md.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable
from typing import Any, NoReturn

import numpy as np

from qkv.sandbox.ops import Op as Op  # the messages' names, for both sides

# A value as it travels: an array's shape, ["t", item, ...] for a tuple, None, or a type's name.
Tree = list[Any] | str | None
# What a payload is read from: a frame's bytes, or the inputs region.
Buffer = bytes | bytearray | memoryview

CELL_MAP_FILE = ".cells.json"  # beside a notebook's extracted code: [[first line, cell label, part's start], ...]
MAX_HEADER = 1 << 20
MAX_PAYLOAD = 64 << 20
MAX_VALUES = (
    16 << 20
)  # what one exchange's returned values may add up to: the grader holds them until judged
INPUTS_BYTES = (
    16 << 20
)  # a submission's shared inputs region (sparse: only what is written takes memory)
MAX_NDIM = 4
MAX_ITEMS = 64
MAX_DEPTH = 16  # of a header's JSON: a value tree holds at most 4 levels of tuples


LENGTH = struct.Struct(">I")  # a frame starts with its header's length: 4 bytes, big-endian
_F8 = np.dtype("<f8")


class WireError(Exception):
    """A frame that breaks the format: too big, malformed, or inconsistent."""


TUPLE = "t"  # the first item of a tuple's tree


def encode_value(value: object, arrays: list[np.ndarray], depth: int = 0) -> Tree:
    """Describe value as a tree (see the module docstring), appending its arrays to `arrays`.

    Args:
        value: what a call returned, or an input.
        arrays: where the value's arrays go, as float64.
        depth: how deep in a tuple this value is.

    Returns:
        The value's tree.
    """
    if (
        type(value) is np.ndarray and value.dtype == _F8 and value.ndim <= MAX_NDIM
    ):  # most values: as they are
        arrays.append(value)
        return list(value.shape)
    if value is None:
        return None
    if isinstance(value, (tuple, list)) and not _is_numeric_list(value):
        if depth > 3:
            return "deeply nested tuple"
        return [TUPLE, *(encode_value(v, arrays, depth + 1) for v in value[:MAX_ITEMS])]
    try:
        arr = np.asarray(value, dtype="<f8")
    except (TypeError, ValueError, OverflowError):
        return type(value).__name__[:80]
    if arr.ndim > MAX_NDIM:
        return f"{arr.ndim}-D array"
    arrays.append(arr)
    return list(arr.shape)


def _is_numeric_list(value: tuple[object, ...] | list[object]) -> bool:
    """A list or tuple of numbers (a row written as a list) travels as one array."""
    return len(value) > 0 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
    )


def pack(header: dict[str, Any], arrays: Iterable[np.ndarray | bytes] = ()) -> bytes:
    """A frame: the header (with the payload's length added) and the arrays' bytes (each an array,
    or its bytes already taken, as float64 little-endian: see array_bytes)."""
    payload = b"".join(a if isinstance(a, bytes) else array_bytes(a) for a in arrays)
    head = json.dumps({**header, "payload": len(payload)}, separators=(",", ":")).encode()
    return LENGTH.pack(len(head)) + head + payload


def array_bytes(array: np.ndarray) -> bytes:
    """An array's values as they travel: float64, little-endian, in C order."""
    data: bytes = array.astype("<f8", copy=False).tobytes()
    return data


LOADED_FRAME = pack({"op": Op.LOADED})  # what every child that loads answers, byte for byte


# +1 for an opening bracket, -1 for a closing one, 0 for any other byte (UTF-8 never uses these
# bytes inside a multi-byte character, so bytes count as the characters they spell).
_BRACKET_STEP = np.zeros(256, dtype=np.int64)
_BRACKET_STEP[[ord("["), ord("{")]] = 1
_BRACKET_STEP[[ord("]"), ord("}")]] = -1


def _nesting(head: bytes) -> int:
    """How deeply brackets nest in a JSON text (an upper bound: brackets inside strings count too)."""
    return int(np.cumsum(_BRACKET_STEP[np.frombuffer(head, dtype=np.uint8)]).max(initial=0))


def parse_header(head: bytes) -> dict[str, Any]:
    """A header from an untrusted side: any failure (size, nesting, number, type) is a WireError."""
    if len(head) > MAX_HEADER:
        raise WireError("header too large")
    try:
        text = head.decode("utf-8")
        if (
            head.count(b"[") + head.count(b"{") > MAX_DEPTH and _nesting(head) > MAX_DEPTH
        ):  # (no deeper than it opens)
            raise WireError("header nests too deeply")
        header = json.loads(text, parse_constant=_no_constant)
    except WireError:
        raise
    except Exception as e:  # RecursionError, ValueError (a 5,000-digit number), MemoryError, ...
        raise WireError(f"header is not JSON ({type(e).__name__})") from None
    if not isinstance(header, dict) or type(header.get("payload")) is not int:
        raise WireError("header lacks a payload length")
    if not 0 <= header["payload"] <= MAX_PAYLOAD:
        raise WireError("payload length is out of bounds")
    return header


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def decode_value(
    tree: object, payload: Buffer, offset: int = 0, depth: int = 0
) -> tuple[object, int]:
    """Rebuild a value from its tree and the payload.

    From a writable payload (a bytearray) arrays are views of it, each its own stretch; from bytes,
    copies (either way, writable float64 arrays).

    Args:
        tree: the value's tree, as the header holds it (untrusted).
        payload: the frame's bytes, or the inputs region.
        offset: where the value's first array starts in the payload.
        depth: how deep in a tuple this value is.

    Returns:
        (the value, the offset after its arrays).

    Raises:
        WireError: the tree is malformed or needs more bytes than the payload holds.
    """
    if tree is None:
        return None, offset
    if type(tree) is str:
        return Other(tree[:80]), offset
    if type(tree) is not list or depth > 3:
        raise WireError("value tree is malformed")
    if not tree or tree[0] != TUPLE:
        return _decode_array(tree, payload, offset)
    if len(tree) > MAX_ITEMS + 1:
        raise WireError("tuple is malformed")
    out: list[object] = []
    for item in tree[1:]:
        value, offset = decode_value(item, payload, offset, depth + 1)
        out.append(value)
    return tuple(out), offset


def _decode_array(shape: list[object], payload: Buffer, offset: int) -> tuple[np.ndarray, int]:
    if len(shape) > MAX_NDIM:
        raise WireError("array shape is malformed")
    count, dims = 1, []
    for d in shape:
        if type(d) is not int or not 0 <= d <= MAX_PAYLOAD:  # a bool is not an int here
            raise WireError("array shape is malformed")
        count *= d
        dims.append(d)
    nbytes = 8 * count
    if offset + nbytes > len(payload):
        raise WireError("array is larger than the payload")
    arr = np.frombuffer(payload, dtype=_F8, count=count, offset=offset).reshape(dims)
    if not arr.flags.writeable or arr.dtype != np.float64:
        arr = arr.astype(np.float64)
    return arr, offset + nbytes


class Other:
    """A returned object that is not an array, tuple or None: only its type name crosses."""

    def __init__(self, type_name: str):
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name}>"


class Frames:
    """Bytes read from the child, cut into whole frames; every size is checked before it is trusted."""

    def __init__(self) -> None:
        self.buf = bytearray()
        # The parsed header of the frame at the front, once it is whole.
        self.header: dict[str, Any] | None = None
        self.need = 0

    def take(self) -> tuple[dict[str, Any], bytearray] | None:
        """The first whole frame (header, payload), or None while it is incomplete."""
        buf = self.buf
        if self.header is None:
            if len(buf) < LENGTH.size:
                return None
            start = LENGTH.size
            (size,) = LENGTH.unpack(buf[:start])
            if size > MAX_HEADER:
                raise WireError("header too large")
            if len(buf) < start + size:
                return None
            self.header = parse_header(bytes(buf[start : start + size]))
            self.need = start + size + self.header["payload"]
        if len(buf) < self.need:
            return None
        header = self.header
        payload = buf[
            self.need - header["payload"] : self.need
        ]  # a copy, which the arrays decoded from it share
        del buf[: self.need]
        self.header = None
        return header, payload
