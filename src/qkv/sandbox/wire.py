"""The message format between the grader and a child: a JSON header plus raw bytes.

Frame: 4-byte big-endian header length, the UTF-8 JSON header, then the payload whose length the
header states. Values are plain data (None, bools, ints, floats, strings, numpy scalars and arrays
of the DTYPES, tuples, lists and dicts of them) and cross with their types; nothing is ever
unpickled, and the reading side checks every size, depth, count, dtype and byte length before it
allocates: a child's reply is untrusted input. The value trees: docs/internals/sandbox.md.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable
from typing import Any, NoReturn

import numpy as np

from qkv.sandbox.ops import Op as Op  # the messages' names, for both sides

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
MAX_ITEMS = 4096  # of one tuple, list or dict
MAX_NODES = 1 << 16  # of one value's tree
MAX_NESTING = 8  # of containers in one value
MAX_TEXT = 1 << 16  # characters of one string
MAX_DEPTH = 16  # of a header's JSON: a value tree holds at most MAX_NESTING levels of containers
INT_BOUND = 1 << 64  # a Python int crosses when its magnitude is below this

# What arrays and numpy scalars may be, as numpy spells them little-endian.
DTYPES = frozenset(
    ("|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "<f4", "<f8")
)

LENGTH = struct.Struct(">I")  # a frame starts with its header's length: 4 bytes, big-endian
_F8 = np.dtype("<f8")
_PAD = bytes(8)


class WireError(Exception):
    """A frame that breaks the format: too big, malformed, or inconsistent."""


TUPLE, LIST, DICT, ARRAY, SCALAR, FLOAT, OTHER = "t", "l", "d", "a", "s", "f", "o"
_CONTAINERS = {TUPLE: tuple, LIST: list}
_NAMES = {TUPLE: "tuple", LIST: "list", DICT: "dict"}


class _Budget:
    """Nodes, and bytes of arrays, left to one value while it is encoded or decoded."""

    __slots__ = ("bytes", "left")

    def __init__(self) -> None:
        self.left = MAX_NODES
        self.bytes = MAX_VALUES


class TooLarge(Exception):
    """A value past the caps: it crosses as its type's name only (see encode_value)."""


def encode_value(value: Any, arrays: list[Any], depth: int = 0, *, strict: bool = False) -> Any:
    """Describe value as a tree (see above), appending its arrays (as they travel) to `arrays`.

    What cannot cross (another type, past the caps) becomes ["o", its type's name]; with `strict`
    (the grader's own values) it raises TypeError instead.

    Args:
        value: what to send.
        arrays: where its arrays go, in the order their bytes travel.
        depth: how deep in a container value is.
        strict: raise for what cannot cross.
    """
    if (
        type(value) is np.ndarray
        and value.dtype == _F8
        and value.ndim <= MAX_NDIM
        and value.nbytes <= MAX_VALUES
    ):
        arrays.append(value)  # most values: as they are
        return list(value.shape)
    mark = len(arrays)
    try:
        return _encode(value, arrays, depth, _Budget(), strict)
    except TooLarge as e:
        del arrays[mark:]
        if strict:
            raise TypeError(f"{e} to student code") from None
        return [OTHER, str(e)[:80]]


def _encode(value: Any, arrays: list[Any], depth: int, budget: _Budget, strict: bool) -> Any:
    budget.left -= 1
    if budget.left < 0:
        raise TooLarge(f"{type(value).__name__} too large to send")
    try:
        return _encode_node(value, arrays, depth, budget, strict)
    except _Refused as e:
        if strict:
            raise TypeError(f"{e} cannot be sent to student code") from None
        return [OTHER, str(e)[:80]]


class _Refused(Exception):
    """One value the wire does not carry; it crosses as ["o", the reason]."""


def _encode_node(value: Any, arrays: list[Any], depth: int, budget: _Budget, strict: bool) -> Any:
    kind = type(value)
    if value is None or kind is bool or kind is str:
        if kind is str and len(value) > MAX_TEXT:
            raise _Refused(f"str of {len(value)} characters")
        return value
    if kind is int:
        if -INT_BOUND < value < INT_BOUND:
            return value
        raise _Refused("int too large to send")
    if kind is float:
        arrays.append(np.array(value, dtype=_F8))
        return [FLOAT]
    if isinstance(value, np.ndarray):
        arr = np.asarray(value).view(np.ndarray)
        if arr.ndim > MAX_NDIM:
            raise _Refused(f"{arr.ndim}-D array")
        # Before any copy: a broadcast or strided view takes no memory until its bytes are taken.
        if arr.nbytes > budget.bytes:
            raise _Refused(f"{arr.dtype} array of {arr.nbytes / 2**20:.0f} MiB (too large to send)")
        arr = _plain(arr)
        budget.bytes -= arr.nbytes
        arrays.append(arr)
        return list(arr.shape) if arr.dtype == _F8 else [ARRAY, arr.dtype.str, list(arr.shape)]
    if isinstance(value, np.generic) and not isinstance(value, np.object_):
        arr = _plain(np.asarray(value))
        arrays.append(arr)
        return [SCALAR, arr.dtype.str]
    if kind in (tuple, list, dict):
        if depth >= MAX_NESTING:
            raise _Refused(f"{kind.__name__} nested too deeply")
        if len(value) > MAX_ITEMS:
            raise _Refused(f"{kind.__name__} of {len(value)} items")
        if kind is dict:
            tree = [DICT]
            for k, v in value.items():
                tree.append(_encode(k, arrays, depth + 1, budget, strict))
                tree.append(_encode(v, arrays, depth + 1, budget, strict))
            return tree
        return [
            TUPLE if kind is tuple else LIST,
            *(_encode(v, arrays, depth + 1, budget, strict) for v in value),
        ]
    raise _Refused(kind.__name__)


def _plain(arr: np.ndarray) -> np.ndarray:
    """arr as a plain array of its kind, little-endian; _Refused when its dtype may not cross."""
    if type(arr) is not np.ndarray:
        arr = arr.view(np.ndarray)
    code = arr.dtype.str
    if code not in DTYPES:
        swapped = arr.dtype.newbyteorder("<").str if arr.dtype.byteorder == ">" else code
        if swapped not in DTYPES:
            raise _Refused(f"array of {arr.dtype}")
        arr = arr.astype(swapped)
    return arr


def pack(header: dict[str, Any], arrays: Iterable[Any] = ()) -> bytes:
    """A frame: the header (with the payload's length added) and the arrays' bytes (each an array,
    or its bytes already taken: see array_bytes)."""
    payload = b"".join(a if type(a) is bytes else array_bytes(a) for a in arrays)
    head = json.dumps({**header, "payload": len(payload)}, separators=(",", ":")).encode()
    return LENGTH.pack(len(head)) + head + payload


def array_bytes(array: np.ndarray) -> bytes:
    """An array's bytes as they travel: its own (whitelisted, little-endian) dtype, C order,
    padded to a multiple of 8 bytes."""
    data: bytes = array.tobytes()
    pad = -len(data) % 8
    return data + _PAD[:pad] if pad else data


def stretch(nbytes: int) -> int:
    """The payload bytes an array of `nbytes` takes (see array_bytes)."""
    return nbytes + (-nbytes % 8)


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


def decode_value(tree: Any, payload: Any, offset: int = 0, depth: int = 0) -> Any:
    """Rebuild a value from its tree and the payload; returns (value, next offset).

    From a writable payload (a bytearray) arrays are views of it, each its own stretch; from bytes,
    copies (either way, writable arrays).

    Args:
        tree: the value's tree, from an untrusted header.
        payload: the bytes its arrays are read from.
        offset: where in the payload they start.
        depth: how deep in a container the tree is.
    """
    return _decode(tree, payload, offset, depth, _Budget())


def _decode(tree: Any, payload: Any, offset: int, depth: int, budget: _Budget) -> Any:
    budget.left -= 1
    if budget.left < 0:
        raise WireError("value has too many items")
    kind = type(tree)
    if tree is None or kind is bool:
        return tree, offset
    if kind is int:
        if not -INT_BOUND < tree < INT_BOUND:
            raise WireError("int is out of bounds")
        return tree, offset
    if kind is str:
        if len(tree) > MAX_TEXT:
            raise WireError("string is too long")
        return tree, offset
    if kind is not list:
        raise WireError("value tree is malformed")
    if not tree or type(tree[0]) is not str:
        return _decode_array(tree, _F8, payload, offset)
    tag = tree[0]
    if tag == FLOAT and len(tree) == 1:
        arr, offset = _decode_array([], _F8, payload, offset)
        return float(arr), offset
    if tag == ARRAY and len(tree) == 3 and tree[1] in DTYPES and tree[1] != "<f8":
        return _decode_array(tree[2], np.dtype(tree[1]), payload, offset)
    if tag == SCALAR and len(tree) == 2 and tree[1] in DTYPES:
        arr, offset = _decode_array([], np.dtype(tree[1]), payload, offset)
        return arr[()], offset
    if tag == OTHER and len(tree) == 2 and type(tree[1]) is str:
        return Other(tree[1][:80]), offset
    if tag not in (TUPLE, LIST, DICT) or depth >= MAX_NESTING:
        raise WireError("value tree is malformed")
    if len(tree) > 2 * MAX_ITEMS + 1 or (tag != DICT and len(tree) > MAX_ITEMS + 1):
        raise WireError(f"{_NAMES[tag]} is malformed")
    items = []
    for item in tree[1:]:
        value, offset = _decode(item, payload, offset, depth + 1, budget)
        items.append(value)
    if tag != DICT:
        return _CONTAINERS[tag](items), offset
    if len(items) % 2:
        raise WireError("dict is malformed")
    try:
        return dict(zip(items[::2], items[1::2])), offset
    except TypeError:  # a key that cannot be one (an array, a list)
        raise WireError("dict is malformed") from None


def _decode_array(shape: Any, dtype: np.dtype[Any], payload: Any, offset: int) -> Any:
    if type(shape) is not list or len(shape) > MAX_NDIM:
        raise WireError("array shape is malformed")
    count = 1
    for d in shape:
        if type(d) is not int or not 0 <= d <= MAX_PAYLOAD:  # a bool is not an int here
            raise WireError("array shape is malformed")
        count *= d
    nbytes = dtype.itemsize * count
    if offset + nbytes > len(payload):
        raise WireError("array is larger than the payload")
    if dtype.kind == "b" and count:
        raw = np.frombuffer(payload, dtype=np.uint8, count=count, offset=offset)
        if int(raw.max()) > 1:
            raise WireError("a boolean array holds bytes other than 0 and 1")
    arr = np.frombuffer(payload, dtype=dtype, count=count, offset=offset).reshape(shape)
    if not arr.flags.writeable:
        arr = arr.copy()
    return arr, offset + stretch(nbytes)


class Other:
    """A returned object that cannot cross (another type, or too large): only its type name does."""

    def __init__(self, type_name: str):
        self.type_name = type_name

    def __repr__(self) -> str:
        return f"<{self.type_name}>"


class Frames:
    """Bytes read from the child, cut into whole frames; every size is checked before it is trusted."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.header: dict[str, Any] | None = (
            None  # the parsed header of the frame at the front, once it is whole
        )
        self.need = 0

    def take(self) -> Any:
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
