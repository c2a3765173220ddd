"""What a confined child's replies come to: parsed strictly, as plain results.

Every field of a reply is checked for its type and size; anything else raises wire.WireError,
which the session turns into that submission's `invalid` outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from qkv.sandbox import wire


@dataclass(frozen=True)
class CallResult:
    """What one call of a student function came to.

    kind: returned | raised | not_implemented | missing | timeout | memory | exited | invalid
    """

    kind: str
    value: object = None
    inputs_changed: tuple[bool, ...] = ()
    message: str = ""


@dataclass
class LoadResult:
    """How loading the submission went."""

    ok: bool
    reason: str = ""  # syntax | import | memory | timeout | exited | unreadable
    message: str = ""
    # Loaded, but these stopped: cells of a notebook, or the file after some definitions.
    stopped: tuple[str, ...] = ()


def one_line(text, limit: int) -> str:
    """A message from the child as one printable line of at most `limit` characters."""
    flat = " ".join(str(text).split())
    if not flat.isprintable():
        flat = "".join(c if c.isprintable() else "?" for c in flat)
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def loaded(header: dict) -> LoadResult:
    """The load result the child's first reply says."""
    if header.get("op") == wire.Op.LOADED:
        stopped = header.get("stopped")
        return LoadResult(
            True,
            stopped=tuple(one_line(t, 300) for t in stopped[:20]) if type(stopped) is list else (),
        )
    message = one_line(header.get("message", "could not be loaded"), 300)
    where = one_line(header.get("where", ""), 300)
    reason = one_line(header.get("reason", "import"), 20)
    return LoadResult(False, reason, message + (f" ({where})" if where else ""))


def results(
    calls, header: dict, payload: bytes, *, entry: str, stopped: tuple[str, ...], memory_mb: int
) -> list[CallResult]:
    """The results one reply frame holds: at least one, and no more than the calls unanswered.

    Args:
        calls: the (function, args) pairs still unanswered, in order.
        header: the frame's header.
        payload: the frame's bytes of arrays.
        entry: the submission's file name, for a missing function's message.
        stopped: what stopped while loading, for a missing function's message.
        memory_mb: the memory limit, for an out-of-memory message.

    Raises:
        wire.WireError: the frame is malformed in any way.
    """
    items = header.get("results")
    if (
        header.get("op") != wire.Op.RESULTS
        or not isinstance(items, list)
        or not 0 < len(items) <= len(calls)
    ):
        raise wire.WireError("unknown reply")
    out, offset = [], 0
    for (function, args), item in zip(calls, items):
        if type(item) is not list or not item:
            raise wire.WireError("a result is not a list")
        result, offset = _result(function, args, item, payload, offset, entry, stopped, memory_mb)
        out.append(result)
    return out


def _result(
    function: str,
    args,
    item: list,
    payload,
    offset: int,
    entry: str,
    stopped: tuple[str, ...],
    memory_mb: int,
) -> tuple[CallResult, int]:
    op = item[0]
    if op == wire.Op.RETURNED and len(item) == 3:
        value, offset = wire.decode_value(item[1], payload, offset)
        changed = item[2]  # per input: whether the call changed it (bit for bit)
        if type(changed) is not list or not all(type(c) is bool for c in changed):
            raise wire.WireError("changed is not a list of booleans")
        return CallResult("returned", value, tuple(changed[: len(args)])), offset
    if op == wire.Op.RAISED and len(item) == 4:
        text = f"raised {one_line(item[1], 80)}: {one_line(item[2], 300)}"
        where = one_line(item[3], 400)
        return CallResult("raised", message=text + (f" ({where})" if where else "")), offset
    if op == wire.Op.NOT_IMPLEMENTED:
        return CallResult("not_implemented", message=f"{function}() is not implemented yet"), offset
    if op == wire.Op.MISSING:
        why = f" ({'; '.join(stopped)})"[:700] if stopped else ""
        message = f"{entry} defines no function {function}(){why}"
        return CallResult("missing", message=message), offset
    if op == wire.Op.MEMORY:
        message = f"{function}() ran out of memory (limit {memory_mb} MiB)"
        return CallResult("memory", message=message), offset
    raise wire.WireError("unknown reply")


def ending(why: str, function: str, limit: float, exit_text) -> CallResult:
    """The result of the call an exchange ended on.

    Args:
        why: timeout, exited, or "invalid: <what was malformed>".
        function: the function of that call.
        limit: the seconds that call could take.
        exit_text: () -> how the child ended, asked only when it exited.
    """
    if why == "timeout":
        return CallResult(
            "timeout", message=f"{function}() did not return within {limit:g} s (an endless loop?)"
        )
    if why == "exited":
        return CallResult(
            "exited", message=f"the process running {function}() ended ({exit_text()})"
        )
    return CallResult("invalid", message=f"the child process sent a malformed reply ({why[9:]})")
