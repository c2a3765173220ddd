"""IPython magics in a notebook's taken cells, skipped: the grader runs plain Python.

A line magic or shell escape (`%timeit f(S)`, `!pip install x`) or a request for help (`np.exp?`)
becomes `pass`, a cell magic whose body is Python (`%%time`) loses its first line only, a cell under
any other cell magic (`%%bash`) is skipped whole, and `%run helpers.py` becomes
`from helpers import *`. Each skip is one line of the student's output, naming the cell and line.
"""

from __future__ import annotations

import re

from qkv.intake import added_cells as added

PYTHON_CELL_MAGICS = frozenset(
    {"time", "timeit", "capture", "prun", "debug"}
)  # %%name whose body is Python
MAGICS_NOTE = "(the grader runs plain Python)"
RUN_MAGIC = re.compile(
    r"%run[ \t]+(?:\.[/\\])?([A-Za-z_]\w*)\.py"
)  # `%run helpers.py`: as `from helpers import *`
HELP_LINE = re.compile(r"\?{1,2}[\w.*%]+|[\w.*%]+\?{1,2}")  # IPython's help: `np.exp?`, `??f`


def magic_lines(source: str) -> list[tuple[int, str]]:
    """(line number, line) of each IPython magic or shell escape in a cell, in order.

    A magic starts a logical line with % or ! (or is IPython's help, `np.exp?`); a % or != that
    continues an expression inside brackets, after a backslash or inside a string is Python and is
    left alone.
    """
    found = []
    depth, quote, continued = 0, "", False
    for number, line in enumerate(added.cell_lines(source), 1):
        stripped = line.lstrip()
        if (
            not quote
            and not depth
            and not continued
            and (
                (stripped[:1] in ("%", "!") and not stripped.startswith("!="))
                or HELP_LINE.fullmatch(stripped.rstrip())
            )
        ):
            found.append((number, stripped))
            continue
        continued, i = False, 0
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == "\\":
                    i += 2
                    continue
                if line.startswith(quote, i):
                    i, quote = i + len(quote), ""
                    continue
            elif ch == "#":
                break
            elif ch in "\"'":
                quote = line[i : i + 3] if line[i : i + 3] in ('"""', "'''") else ch
                i += len(quote)
                continue
            elif ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth = max(0, depth - 1)
            elif ch == "\\" and i == len(line) - 1:
                continued = True
            i += 1
        if (
            len(quote) == 1
        ):  # a one-quote string never spans lines (unless the student errs: a syntax error)
            quote = ""
    return found


def without_magics(source: str, label: str) -> tuple[str, list[str]]:
    """The cell's source with its magics skipped (see the module docstring), and a line on each."""
    magics = magic_lines(source)
    if not magics:
        return source, []
    lines = added.cell_lines(source)
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    if magics[0][0] == first + 1 and magics[0][1].startswith("%%"):
        name = magics[0][1][2:].split(maxsplit=1)[0] if len(magics[0][1]) > 2 else ""
        if (
            name not in PYTHON_CELL_MAGICS
        ):  # its body is not Python (a shell script, a file to write)
            return "", [
                f"{label}: skipped: the cell magic {magics[0][1][:40]!r} runs no Python here"
            ]
    notes = []
    for number, text in magics:
        line = lines[number - 1]
        run = RUN_MAGIC.fullmatch(text.rstrip())
        instead = (
            f"from {run[1]} import *" if run else "pass"
        )  # a module of the student's own, beside it
        lines[number - 1] = line[: len(line) - len(line.lstrip())] + instead
        said = f"read as {instead!r}" if run else "skipped"
        notes.append(f"{label}, line {number}: IPython magic {text[:40]!r} {said}")
    return "\n".join(lines) + "\n", notes
