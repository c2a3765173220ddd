"""Reading a submitted notebook: the code of its solution cells, and its quiz answers cell.

A notebook is untrusted JSON: only the cells' sources are read, and every problem becomes one
QkvError line naming the file. The solution cells (by nbgrader metadata, else by defining an
exercise function) are the student's code; of the other cells only definitions, constants and
guarded imports are taken, so demo calls and plots do not run. Magics are skipped (magics.py).
The quiz answers are the cells marked `"qkv": {"answers": true}` or starting with ANSWERS_HEADER.
See docs/internals/notebooks.md for which cells are taken and why.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from qkv.errors import QkvError
from qkv.intake import added_cells as added
from qkv.intake import magics, stubs
from qkv.quiz.answers import Answers

PRELUDE = "import numpy as np\n"
HELPER_BYTES = (
    256 << 10
)  # of the code cells a student added, at most this much source is parsed, all told
ANSWERS_HEADER = "# Quiz answers"
ANSWERS_META = "qkv"
ANSWERS_CELL_TYPES = (
    "raw",
    "markdown",
    "code",
)  # what an editor may have made of the released raw cell


def _defines(functions) -> re.Pattern:
    return re.compile(
        rf"^(?:async\s+)?def\s+({'|'.join(map(re.escape, functions))})\s*\(", re.MULTILINE
    )


def _cells(data: bytes, name: str) -> list[dict]:
    """The notebook's list of cells, each a dict; raises QkvError when it is not a notebook."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise QkvError(
            f"{name}: not UTF-8 text (byte {e.start}); is it a Jupyter notebook?"
        ) from None
    try:
        nb = json.loads(text)
    except json.JSONDecodeError as e:
        raise QkvError(
            f"{name}: not a notebook: invalid JSON at line {e.lineno}: {e.msg}"
        ) from None
    except (ValueError, RecursionError) as e:  # a number Python will not build, or nesting too deep
        reason = (
            "nested too deeply" if isinstance(e, RecursionError) else " ".join(str(e).split())[:80]
        )
        raise QkvError(f"{name}: not a notebook: invalid JSON: {reason}") from None
    if isinstance(nb, dict) and "worksheets" in nb and "cells" not in nb:
        raise QkvError(
            f"{name}: an old (nbformat 3) notebook; open it in Jupyter and save it to update it"
        )
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise QkvError(f"{name}: not a notebook: no list of cells")
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            raise QkvError(f"{name}: cell {number} is not a JSON object")
    return cells


def _source(cell: dict, number: int, name: str) -> str:
    """A cell's source as text (nbformat allows a string or a list of strings)."""
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        src = "".join(src)
    if not isinstance(src, str):
        raise QkvError(f"{name}: cell {number}: its source is not text")
    if "\x00" in src:
        raise QkvError(f"{name}: cell {number}: its source holds a NUL character")
    try:
        src.encode("utf-8")
    except UnicodeEncodeError:
        raise QkvError(
            f"{name}: cell {number}: its source holds a character that is not valid text"
        ) from None
    return src


def _meta(cell: dict, key: str) -> dict:
    metadata = cell.get("metadata")
    value = metadata.get(key) if isinstance(metadata, dict) else None
    return value if isinstance(value, dict) else {}


def _released(cell: dict) -> bool:
    """A cell with nbgrader metadata of any kind: one the release made (or a copy of one)."""
    metadata = cell.get("metadata")
    return isinstance(metadata, dict) and "nbgrader" in metadata


def is_solution(cell: dict) -> bool:
    """A code cell marked as an nbgrader solution cell (JSON true only, not "true")."""
    return cell.get("cell_type") == "code" and _meta(cell, "nbgrader").get("solution") is True


def _label(cell: dict, number: int) -> str:
    grade_id = _meta(cell, "nbgrader").get("grade_id")
    if isinstance(grade_id, str) and grade_id.isprintable() and 0 < len(grade_id) <= 40:
        return f"cell {number} ({grade_id})"
    return f"cell {number}"


def code_cells(data: bytes, path, functions) -> list[tuple[str, str, bool]]:
    """(label, source, solution) of each code cell the student's code is taken from, in notebook
    order, as in the notebook (magics and all): the solution cells, whole, and the other cells the
    student wrote, whose definitions only are taken (see added.py).

    Args:
        functions: the assignment's function names, for a notebook without solution metadata.
    """
    name = Path(path).name
    cells = _cells(data, name)
    code = [(n, c) for n, c in enumerate(cells, 1) if c.get("cell_type") == "code"]
    solution = {n for n, c in code if is_solution(c)}
    if solution:
        theirs = {n for n, c in code if n not in solution and not _released(c)}
    else:
        defines = _defines(functions)
        solution = {n for n, c in code if defines.search(_source(c, n, name))}
        theirs = {n for n, c in code} - solution
    if not solution:
        raise QkvError(
            f"{name}: no solution cells, and no cell defines {', '.join(functions)}; "
            "is it the assignment's notebook?"
        )
    return [
        (_label(cell, number), _source(cell, number, name), number in solution)
        for number, cell in code
        if number in solution or number in theirs
    ]


def extract(data: bytes, path, functions) -> tuple[bytes, list[tuple[int, str, int]]]:
    """The Python module made of the notebook's code cells, and where each cell's part begins.

    Args:
        data: the notebook's bytes.
        path: the notebook, for errors.
        functions: the exercise's functions, which pick the solution cells when no metadata does.

    Returns:
        (the module's source, per cell: the module's line where its first line lands, its label,
        and the line where the module's part for it begins); the child runs each such part on its
        own, as Jupyter runs cells.

    Raises:
        QkvError: one line naming the file when it is not a notebook.
    """
    cells, notes = [], []
    parse_budget = HELPER_BYTES
    defines = _defines(functions)
    taken = []  # (label, the cell without its magics, solution, its skipped magics)
    for label, source, solution in code_cells(data, path, functions):
        source = source.replace("\r\n", "\n").replace(
            "\r", "\n"
        )  # lines end as the line map counts them
        taken.append((label, *magics.without_magics(source, label), solution))
    # A function whose solution cells hold only the release's stub is graded from a cell the student added.
    stubbed = {label: stubs.stub_lines(body) for label, body, _, solution in taken if solution}
    graded = {
        m
        for label, body, _, solution in taken
        if solution
        for m in defines.findall(body)
        if m not in stubbed[label]
    }
    replaced: dict = {}  # function -> the added cell whose definition replaces its stub
    for label, body, skipped, solution in taken:
        if solution:
            cells.append([label, "", body.rstrip()])
            notes += [f"{note} {magics.MAGICS_NOTE}" for note in skipped]
            continue
        if (
            len(body) > parse_budget
        ):  # an added cell is parsed here, in the trusted process: only so much
            notes.append(
                f"{label}: not taken: larger than the {HELPER_BYTES >> 10} KiB read of cells you added"
            )
            continue
        parse_budget -= len(body)
        guarded, body, names, overridden = added.definitions(body, graded)
        if guarded or names:
            cells.append([label, guarded, body.rstrip()])
        if names:
            notes.append(
                f"{label}: its definitions are taken ({', '.join(names)[:120]}); the rest of it is not run"
            )
        if overridden:  # a solution cell defines it: that one is graded (a scratch version must not override it)
            notes.append(
                f"{label}: its {', '.join(f'{n}()' for n in overridden)[:120]} not taken: "
                "the one in the exercise's own cell is graded"
            )
        replaced.update((n, label) for n in names if any(n in lines for lines in stubbed.values()))
    for cell in cells:  # a stub replaced is left out (lines kept blank), wherever its cell is
        for name, (first, last) in stubbed.get(cell[0], {}).items():
            if name in replaced:
                lines = cell[2].split("\n")
                lines[first - 1 : last] = [""] * len(lines[first - 1 : last])
                cell[2] = "\n".join(lines)
                notes.append(
                    f"{cell[0]}: its {name}() is still the release's stub: "
                    f"the one in {replaced[name]} is graded"
                )
    said = "".join(f"print({note!r})\n" for note in notes)
    parts = [
        "# The code cells of the notebook, in notebook order.\n",
        PRELUDE,
        said,
    ]  # no file name: untrusted
    starts, line = [], 1 + PRELUDE.count("\n") + len(notes)
    for label, guarded, body in cells:
        parts.append(f"\n# {label}\n{guarded}{body}\n")
        begins = (
            line + 1
        )  # the blank line before the label comment: where the cell's own code starts
        line += 2 + guarded.count("\n")  # the blank line, the label comment and the guarded imports
        starts.append((line + 1, label, begins))
        line += body.count("\n") + 1
    return "".join(parts).encode("utf-8"), starts


def extract_code(data: bytes, path, functions) -> bytes:
    """The Python module made of the notebook's solution cells.

    Args:
        data: the notebook's bytes.
        path: the notebook, for errors.
        functions: the exercise's functions.

    Returns:
        The module's source.

    Raises:
        QkvError: as extract.
    """
    return extract(data, path, functions)[0]


def stubs_left(data: bytes, path) -> int | None:
    """How many functions of the solution cells (of every code cell, without solution metadata) are
    still the release's stubs (see grading/stubs.py), but those a cell the student added defines (as
    `extract` grades them); None when it is not a notebook."""
    name = Path(path).name
    try:
        cells = _cells(data, name)
        code = [(n, c) for n, c in enumerate(cells, 1) if c.get("cell_type") == "code"]
        solution = [(n, c) for n, c in code if is_solution(c)] or code
        left = {f for n, c in solution for f in stubs.stub_lines(_source(c, n, name))}
        numbers = {n for n, _ in solution}
        others = "\n".join(
            _source(c, n, name) for n, c in code if n not in numbers and not _released(c)
        )
        return (
            len(left - set(_defines(sorted(left)).findall(others)))
            if left and others
            else len(left)
        )
    except QkvError:
        return None


def answers_cells(data: bytes, path) -> list[str]:
    """The sources of the quiz answers cell(s), in notebook order; empty when there is none."""
    name = Path(path).name
    cells = _cells(data, name)
    marked = [
        (n, c) for n, c in enumerate(cells, 1) if _meta(c, ANSWERS_META).get("answers") is True
    ]
    if not marked:  # its metadata lost, and perhaps its type: Colab has no raw cells
        marked = [
            (n, c)
            for n, c in enumerate(cells, 1)
            if c.get("cell_type") in ANSWERS_CELL_TYPES
            and _source(c, n, name).lstrip().startswith(ANSWERS_HEADER)
        ]
    return [_source(c, n, name) for n, c in marked]


def answers(data: bytes, path) -> Answers:
    """The quiz answers held by the notebook, or the one line on why there are none."""
    name = f"{Path(path).name} (quiz answers cell)"
    try:
        texts = answers_cells(data, path)
    except QkvError as e:
        return Answers(name, None, f"{e}; no quiz answers could be graded")
    if not texts:
        return Answers(
            name,
            None,
            f"{Path(path).name}: no quiz answers cell and no answers.yaml, "
            "so no quiz answers could be graded",
        )
    return Answers(name, "\n".join(t.rstrip("\n") for t in texts) + "\n")
