"""What the child runs of a submission, piece by piece: a notebook cell by cell, and a file on after
the statement where its top lines raised.

A .py that raises at import (a demo that saves a plot, `argparse` reading the grader's command
line, `input()` with nothing to read) would otherwise be graded on what it defined before that
line only, and a file whose demo comes first on nothing at all. The child runs the rest of the
file after the statement that raised, as a notebook goes on after a cell that fails, and says
which line stopped.
"""

from __future__ import annotations

import ast
import types


def split(source: bytes, filename: str, cells) -> list:
    """What a child runs of a submission, piece by piece, each compiled where its lines are.

    Args:
        source: the submission's code.
        filename: the file's name, as tracebacks show it.
        cells: a notebook's map from lines to cells, or None for a file.

    Returns:
        [(label, code, source), ...] to run in turn: (None, the whole file), or for a notebook its
        first lines and then each cell on its own, as Jupyter runs them (code is a SyntaxError for
        a cell that does not compile).

    Raises:
        SyntaxError: the whole file does not compile.
    """
    cells = [c for c in cells or () if type(c) is list and len(c) == 3 and type(c[2]) is int]
    if not cells:
        return [(None, _compile(source, filename), source)]
    lines = source.decode("utf-8").split(
        "\n"
    )  # lines as the map counts them: "\u2028" in a string is no end
    lines = [line + "\n" for line in lines[:-1]] + lines[-1:]
    bounds = [start for _, _, start in cells] + [len(lines) + 1]
    first = "".join(lines[: bounds[0] - 1])
    pieces: list[tuple[str | None, types.CodeType | SyntaxError, str]] = [
        (None, _compile(first, filename), first)
    ]
    for (first_line, label, start), end in zip(cells, bounds[1:]):
        text = "\n" * (start - 1) + "".join(lines[start - 1 : end - 1])
        try:
            pieces.append(
                (
                    str(label),
                    _compile(text, filename, first_line if type(first_line) is int else start),
                    text,
                )
            )
        except SyntaxError as e:
            pieces.append((str(label), e, text))
    return pieces


def _compile(source: bytes | str, filename: str, line: int | None = None) -> types.CodeType:
    """compile(), where an expression nested or chained too deeply for the compiler (a RecursionError or a
    MemoryError, not a SyntaxError) is a SyntaxError too, at `line` (a cell's first) if given."""
    try:
        return compile(source, filename, "exec", dont_inherit=True)
    except (RecursionError, MemoryError) as e:
        raise SyntaxError(
            f"an expression is nested or chained too deeply to compile ({type(e).__name__})",
            (filename, line, None, None),
        ) from None


def failed_line(exc: BaseException, filename: str) -> int | None:
    """The line of the file's top level that was running when `exc` came up, or None."""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename and code.co_name == "<module>":
            return tb.tb_lineno
        tb = tb.tb_next
    return None


def _statements(source: bytes | str, filename: str) -> list:
    """(first line, statement) of each top-level statement; a decorated one starts at its first decorator."""
    try:
        body = ast.parse(source, filename).body
    except (
        SyntaxError,
        ValueError,
        RecursionError,
        MemoryError,
    ):  # it compiled once: it should parse again
        return []
    return [
        (min([s.lineno] + [d.lineno for d in getattr(s, "decorator_list", ())]), s) for s in body
    ]


def after(source: bytes | str, filename: str, exc: BaseException) -> list[types.CodeType]:
    """The file's top-level statements after the one that raised `exc`, each compiled on its own.

    Each is compiled where it stands in the file (tracebacks keep their line numbers): run in turn,
    one that raises stops only itself. Empty when none follow, the line is unknown, or the file
    stopped itself (`sys.exit()`, `exit()`).

    Args:
        source: the file's code.
        filename: the file's name, as tracebacks show it.
        exc: what the statement raised.

    Returns:
        The statements' code objects, in order.
    """
    if isinstance(exc, SystemExit) and exc.code in (
        None,
        0,
    ):  # `sys.exit()`: the file means to stop there
        return []
    line = failed_line(exc, filename)
    if line is None:
        return []
    body = _statements(source, filename)
    rest = [statement for first, statement in body if first > line]
    if len(rest) == len(body):  # the line is not the file's
        return []
    # The file's `from __future__ import annotations` holds for its later lines too.
    future = [s for _, s in body if isinstance(s, ast.ImportFrom) and s.module == "__future__"]
    return [
        compile(
            ast.Module(body=[*future, statement], type_ignores=[]),
            filename,
            "exec",
            dont_inherit=True,
        )
        for statement in rest
    ]
